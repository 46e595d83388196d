package capture

import (
	"testing"
	"time"

	"github.com/pondhq/pond/session/view"
)

// TestHealth follows one agent through a format change and a recovery, beside an agent that is
// not installed and one the syncs do not run.
func TestHealth(t *testing.T) {
	dir := t.TempDir()
	day := func(d int) time.Time { return time.Date(2026, 11, d, 12, 0, 0, 0, time.UTC) }
	sync := func(d int, reports ...view.AdapterReport) []view.AdapterHealth {
		t.Helper()
		r := &view.SyncReport{StartedAt: day(d), FinishedAt: day(d), Adapters: reports, Outcome: "ok"}
		if err := SaveLastSync(dir, r, nil); err != nil {
			t.Fatal(err)
		}
		ls, ok := ReadLastSync(dir)
		if !ok {
			t.Fatal("no last-sync record")
		}
		return ls.Health
	}
	find := func(hs []view.AdapterHealth, name string) view.AdapterHealth {
		for _, h := range hs {
			if h.Adapter == name {
				return h
			}
		}
		t.Fatalf("no health record for %s in %+v", name, hs)
		return view.AdapterHealth{}
	}

	hs := sync(1, view.AdapterReport{Adapter: "codex-cli", New: 3},
		view.AdapterReport{Adapter: "pi-coding-agent", New: 1},
		view.AdapterReport{Adapter: "gemini-cli", Reason: "not_found", Error: "no ~/.gemini"})
	if h := find(hs, "codex-cli"); h.LastOK != "2026-11-01T12:00:00Z" || h.Failing() || h.Malformed != 0 {
		t.Errorf("day 1 codex: %+v", h)
	}
	if h := find(hs, "gemini-cli"); h.Failing() || h.LastOK != "" {
		t.Errorf("an agent that is not installed is not failing: %+v", h)
	}

	// The agent updates: its new files hold lines the adapter cannot read.
	problems := []view.Problem{{Path: "a", Line: 1, Error: "x"}, {Path: "a", Line: 2, Error: "x"}, {Path: "a", Line: 3, Error: "x"}, {Path: "a", Line: 4, Error: "x"}}
	hs = sync(2, view.AdapterReport{Adapter: "codex-cli", Updated: 1, MalformedCount: 9, Malformed: problems, Unknown: map[string]int{"turn_v2": 4}})
	h := find(hs, "codex-cli")
	if h.Malformed != 9 || h.Unknown["turn_v2"] != 4 || len(h.Problems) != problemsKept || h.LastOK != "2026-11-02T12:00:00Z" {
		t.Errorf("day 2 codex: %+v", h)
	}
	if p := find(hs, "pi-coding-agent"); p.LastOK != "2026-11-01T12:00:00Z" {
		t.Errorf("an adapter this sync did not run lost its record: %+v", p)
	}

	// Nothing changed: the counts stay what the changed files showed.
	if h := find(sync(3, view.AdapterReport{Adapter: "codex-cli"}), "codex-cli"); h.Malformed != 9 || h.LastOK != "2026-11-03T12:00:00Z" {
		t.Errorf("day 3 codex: %+v", h)
	}

	// It breaks, stays broken, then recovers.
	sync(4, view.AdapterReport{Adapter: "codex-cli", Reason: "unreadable", Error: "permission denied"})
	h = find(sync(5, view.AdapterReport{Adapter: "codex-cli", Reason: "unreadable", Error: "permission denied"}), "codex-cli")
	if !h.Failing() || h.FailingSince != "2026-11-04T12:00:00Z" || h.LastOK != "2026-11-03T12:00:00Z" {
		t.Errorf("day 5 codex: %+v", h)
	}
	h = find(sync(6, view.AdapterReport{Adapter: "codex-cli", Updated: 1}), "codex-cli")
	if h.Failing() || h.FailingSince != "" || h.Malformed != 0 || h.Unknown != nil {
		t.Errorf("day 6 codex: %+v", h)
	}
}
