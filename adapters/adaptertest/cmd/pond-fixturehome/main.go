// Command pond-fixturehome writes every agent's test fixture into a fake home, each where that
// agent keeps its files, so a Pond pointed at the home (HOME and the XDG folders) finds them
// all: for trying Pond by hand on real agents' files, and for training the mirror's record
// dictionary (store/sqlite/packdict/train.go). Run it from the repository's root:
//
//	go run ./adapters/adaptertest/cmd/pond-fixturehome -home /tmp/fixture-home
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/store/sqlite"
)

func main() {
	home := flag.String("home", "", "the fake home directory to write (must not exist)")
	flag.Parse()
	if err := run(*home); err != nil {
		fmt.Fprintln(os.Stderr, "pond-fixturehome:", err)
		os.Exit(1)
	}
}

func run(home string) error {
	if home == "" {
		return errors.New("-home DIR is required")
	}
	home, err := filepath.Abs(home)
	if err != nil {
		return err
	}
	if _, err := os.Stat(home); !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s exists: give a new folder", home)
	}
	if _, err := os.Stat("go.mod"); err != nil {
		return errors.New("run it from the repository's root (the fixtures are read from there)")
	}
	// Only HOME: every agent's default root then lies under it, as on a fresh account.
	env := adapters.Env{GOOS: runtime.GOOS, Home: home, Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}}
	roots, err := adaptertest.PlaceFixtures(".", env, all.Adapters(), sqlite.CreateFromScript)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(roots))
	for n := range roots {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Printf("%-16s %s\n", n, roots[n])
	}
	return nil
}
