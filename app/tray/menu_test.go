package tray

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/installer/service"
	"github.com/pondhq/pond/session/view"
)

func TestBuild(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	ok := func(mut func(*view.Status)) *view.Status {
		st := &view.Status{Sessions: 1234, Messages: 56789, Consent: "granted",
			LastSync: &view.LastSync{FinishedAt: now.Add(-5 * time.Minute).Format(time.RFC3339), Outcome: "ok"},
			Daemon:   &view.DaemonInfo{PID: 1}}
		if mut != nil {
			mut(st)
		}
		return st
	}
	tests := []struct {
		name     string
		state    State
		icon     Icon
		tooltip  string // a substring
		labels   []string
		disabled []string
	}{
		{"capturing", State{Status: ok(nil), Archive: "/a"}, IconCapturing, "capturing",
			[]string{"Search…", "Pause capture", "Sync now", "Adapters…", "1,234 sessions, 56,789 messages", "Last sync 5 min ago (ok)", "Semantic search off (no model)", "Open archive folder", "Settings…", "About Pond", "Quit tray"}, nil},
		{"consent-needed", State{Status: ok(func(s *view.Status) { s.Consent = "not_asked" })}, IconPaused, "consent",
			[]string{"Search…", "Review capture consent…", "Sync now"}, []string{"Sync now", "Open archive folder"}},
		{"declined", State{Status: ok(func(s *view.Status) { s.Consent = "declined" })}, IconDeclined, "capture is off",
			[]string{"Search…", "Turn capture on…"}, []string{"Sync now"}},
		{"stopped-not-installed", State{StatusErr: "dial unix: no such file", Service: service.Status{State: service.NotInstalled}}, IconStopped, "not running",
			[]string{"Search…", "Daemon stopped", "dial unix: no such file", "Start daemon", "Settings…"}, []string{"Search…"}},
		{"stopped-but-expected", State{Service: service.Status{State: service.Installed}}, IconFailing, "login service is installed",
			[]string{"Search…", "Daemon not answering (login service installed)", "Start daemon"}, nil},
		{"daemon-failing", State{Status: ok(func(s *view.Status) { s.Daemon.LastError = "watch: too many files" })}, IconFailing, "too many files",
			[]string{"Error: watch: too many files"}, nil},
		{"last-sync-failed", State{Status: ok(func(s *view.Status) { s.LastSync.Outcome, s.LastSync.Error = "failed", "disk full" })}, IconFailing, "disk full",
			[]string{"Last sync 5 min ago (failed)", "Error: last sync failed: disk full"}, nil},
		{"adapter-failing", State{Status: ok(func(s *view.Status) { s.LastSync.Outcome = "partial" })}, IconFailing, "adapter",
			[]string{"Last sync 5 min ago (partial)"}, nil},
		{"agent-failing", State{Status: ok(func(s *view.Status) {
			s.LastSync.Outcome = "partial"
			s.LastSync.Health = []view.AdapterHealth{{Adapter: "codex-cli", Error: "permission denied"}, {Adapter: "pi-coding-agent", LastOK: "2026-11-01T00:00:00Z"}}
		})}, IconFailing, "capture failing for codex-cli",
			[]string{"Last sync 5 min ago (partial)"}, nil},
		{"syncing", State{Status: ok(nil), Syncing: true}, IconSyncing, "syncing",
			[]string{"Sync now"}, []string{"Sync now"}},
		{"backfill", State{Status: ok(func(s *view.Status) { s.Embeddings = view.Embeddings{Enabled: true, Embedded: 250, Pending: 750} })}, IconBackfill, "embedding 750",
			[]string{"Semantic search: 25% embedded"}, nil},
		{"connecting", State{Connecting: true}, IconStopped, "connecting",
			[]string{"Search…", "Connecting to the daemon…", "Quit tray"}, []string{"Search…"}},
		{"never-synced", State{Status: ok(func(s *view.Status) { s.LastSync = nil })}, IconCapturing, "capturing",
			[]string{"Never synced"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.state.Now = now
			m := Build(tt.state)
			if m.Icon != tt.icon {
				t.Errorf("icon: got %s want %s", m.Icon, tt.icon)
			}
			if !strings.Contains(m.Tooltip, tt.tooltip) {
				t.Errorf("tooltip: got %q want it to contain %q", m.Tooltip, tt.tooltip)
			}
			have := map[string]Item{}
			for _, it := range m.Items {
				have[it.Label] = it
			}
			for _, l := range tt.labels {
				if _, ok := have[l]; !ok {
					t.Errorf("no item %q in %v", l, labels(m))
				}
			}
			for _, l := range tt.disabled {
				if it, ok := have[l]; !ok || !it.Disabled {
					t.Errorf("item %q: want it there and disabled, got %+v (present %v)", l, it, ok)
				}
			}
			if last := m.Items[len(m.Items)-1]; last.Action != ActQuit {
				t.Errorf("last item: got %+v want Quit tray", last)
			}
		})
	}
}

func labels(m Menu) []string {
	var out []string
	for _, it := range m.Items {
		out = append(out, it.Label)
	}
	return out
}

func TestIconsDistinct(t *testing.T) {
	seen := map[string]Icon{}
	for _, ic := range []Icon{IconCapturing, IconPaused, IconDeclined, IconStopped, IconFailing, IconBackfill, IconSyncing} {
		b := PNG(ic)
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Fatalf("%s: %v", ic, err)
		}
		if o, dup := seen[string(b)]; dup {
			t.Errorf("%s draws the same as %s", ic, o)
		}
		seen[string(b)] = ic
	}
}

// TestWriteIcons writes every icon to $POND_ICON_OUT (for docs/screens/tray-icons.png); skipped
// when unset.
func TestWriteIcons(t *testing.T) {
	dir := os.Getenv("POND_ICON_OUT")
	if dir == "" {
		t.Skip("POND_ICON_OUT not set")
	}
	for _, ic := range []Icon{IconCapturing, IconSyncing, IconBackfill, IconPaused, IconDeclined, IconStopped, IconFailing} {
		if err := os.WriteFile(filepath.Join(dir, string(ic)+".png"), PNG(ic), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
