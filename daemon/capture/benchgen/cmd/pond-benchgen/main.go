// Command pond-benchgen writes benchgen's corpus of native session files into a fake home
// directory and prints its manifest as JSON: the input of scripts/bench-sync.sh.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/pondhq/pond/daemon/capture/benchgen"
)

func main() {
	cfg := benchgen.Default()
	home := flag.String("home", "", "the fake home directory to write (must not exist)")
	flag.IntVar(&cfg.Sessions, "sessions", cfg.Sessions, "sessions, dealt round-robin to the agents")
	flag.IntVar(&cfg.MessagesPerSession, "messages", cfg.MessagesPerSession, "average canonical messages per session")
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed")
	only := flag.String("agents", "", "comma-separated adapter names: a corpus of these formats only (default: every agent's)")
	flag.Parse()
	if *only != "" {
		cfg.Only = strings.Split(*only, ",")
	}
	if err := run(*home, cfg); err != nil {
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
