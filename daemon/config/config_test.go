package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestConsentPerAgent(t *testing.T) {
	type answer struct{ agent, consent string }
	for _, c := range []struct {
		name    string
		answers []answer
		global  Consent
		agents  map[string]Consent
		want    map[string]Consent // ConsentFor
	}{
		{"never_asked", nil, NotAsked, nil, map[string]Consent{"claude-code": NotAsked}},
		{"global", []answer{{"", "granted"}}, Granted, nil, map[string]Consent{"claude-code": Granted, "codex-cli": Granted}},
		// A plugin's answer while nothing was asked becomes the global one too.
		{"agent_first", []answer{{"pi-coding-agent", "granted"}}, Granted, map[string]Consent{"pi-coding-agent": Granted},
			map[string]Consent{"pi-coding-agent": Granted, "codex-cli": Granted}},
		// Once the user answered for all, an agent's answer sets only that agent.
		{"agent_after_global", []answer{{"", "declined"}, {"claude-code", "granted"}}, Declined, map[string]Consent{"claude-code": Granted},
			map[string]Consent{"claude-code": Granted, "codex-cli": Declined}},
		{"agent_declines", []answer{{"", "granted"}, {"codex-cli", "declined"}}, Granted, map[string]Consent{"codex-cli": Declined},
			map[string]Consent{"claude-code": Granted, "codex-cli": Declined}},
		// An answer for every agent replaces the agents' own.
		{"global_after_agent", []answer{{"", "declined"}, {"claude-code", "granted"}, {"", "declined"}}, Declined, nil,
			map[string]Consent{"claude-code": Declined}},
		{"agent_back_to_global", []answer{{"", "granted"}, {"codex-cli", "declined"}, {"codex-cli", "not_asked"}}, Granted, map[string]Consent{},
			map[string]Consent{"codex-cli": Granted}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := Default()
			for _, a := range c.answers {
				cfg.SetConsent(a.agent, Consent(a.consent))
			}
			if cfg.Consent.Capture != c.global {
				t.Errorf("global: got %s, want %s", cfg.Consent.Capture, c.global)
			}
			if diff := cmp.Diff(c.agents, cfg.Consent.Agents, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("agents (-want +got):\n%s", diff)
			}
			for agent, want := range c.want {
				if got := cfg.ConsentFor(agent); got != want {
					t.Errorf("ConsentFor(%s): got %s, want %s", agent, got, want)
				}
			}
			// The answers survive the file.
			path := filepath.Join(t.TempDir(), "config.toml")
			if err := cfg.Save(path); err != nil {
				t.Fatal(err)
			}
			back, _, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			for agent, want := range c.want {
				if got := back.ConsentFor(agent); got != want {
					t.Errorf("after Load, ConsentFor(%s): got %s, want %s", agent, got, want)
				}
			}
		})
	}
}

func TestLoadRefusesAnUnknownAgentAnswer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte("[consent]\ncapture = \"granted\"\n[consent.agents]\nclaude-code = \"maybe\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(path); err == nil || !strings.Contains(err.Error(), "consent.agents.claude-code") {
		t.Errorf("got %v, want an error naming consent.agents.claude-code", err)
	}
}

func TestStorageCacheBound(t *testing.T) {
	for _, c := range []struct {
		toml string
		want int64
	}{
		{"", DefaultStorageCacheMiB},
		{"[storage]\npath = \"s3://b/p\"\n", DefaultStorageCacheMiB},
		{"[storage]\ncache_mib = 256\n", 256},
		{"[storage]\ncache_mib = -1\n", 0},
	} {
		p := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(p, []byte(c.toml), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, _, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.StorageCacheMiB(); got != c.want {
			t.Errorf("%q: %d MiB, want %d", c.toml, got, c.want)
		}
	}
}
