// Command pond-benchgen writes benchgen's corpus of native session files into a fake home
// directory and prints its manifest as JSON: the input of scripts/bench-sync.sh.
//
// With -fixtures it writes instead every agent's test fixture (files the agents' own code
// wrote, from the repository), each where its agent keeps its files, and prints where: a home
// to try Pond on by hand. Run it from the repository's root.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/daemon/capture/benchgen"
	"github.com/pondhq/pond/store/sqlite"
)

func main() {
	cfg := benchgen.Default()
	home := flag.String("home", "", "the fake home directory to write (must not exist)")
	flag.IntVar(&cfg.Sessions, "sessions", cfg.Sessions, "sessions, dealt round-robin to the agents")
	flag.IntVar(&cfg.MessagesPerSession, "messages", cfg.MessagesPerSession, "average canonical messages per session")
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed")
	only := flag.String("agents", "", "comma-separated adapter names: a corpus of these formats only (default: every agent's)")
	fixtures := flag.Bool("fixtures", false, "write every agent's test fixture instead of a generated corpus")
	flag.Parse()
	if *only != "" {
		cfg.Only = strings.Split(*only, ",")
	}
	write := run
	if *fixtures {
		write = func(home string, _ benchgen.Config) error { return writeFixtures(home) }
	}
	if err := write(*home, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "pond-benchgen:", err)
		os.Exit(1)
	}
}

func run(home string, cfg benchgen.Config) error {
	if home == "" {
		return fmt.Errorf("-home is required")
	}
	if _, err := os.Stat(home); err == nil {
		return fmt.Errorf("%s exists; remove it or pick another folder", home)
	}
	m, err := benchgen.Write(home, cfg)
	if err != nil {
		return err
	}
	out := struct {
		*benchgen.Manifest
		Total benchgen.Counts `json:"total"`
	}{m, m.Total()}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// writeFixtures puts each adapter's fixture where its agent's default root lies under home.
func writeFixtures(home string) error {
	if home == "" {
		return fmt.Errorf("-home is required")
	}
	home, err := filepath.Abs(home)
	if err != nil {
		return err
	}
	if _, err := os.Stat(home); err == nil {
		return fmt.Errorf("%s exists; remove it or pick another folder", home)
	}
	if _, err := os.Stat("go.mod"); err != nil {
		return fmt.Errorf("run it from the repository's root (the fixtures are read from there)")
	}
	// Only HOME set: every agent's root then lies under it, as on a fresh account.
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
	for _, n := range slices.Sorted(maps.Keys(roots)) {
		fmt.Printf("%-16s %s\n", n, roots[n])
	}
	return nil
}
