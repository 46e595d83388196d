package resume_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/resume"
)

// TestOpenClawRestoreBesideAnIndex: OpenClaw's restore goes into a folder whose sessions.json
// already exists (a legacy install never imported, an earlier restore not imported yet): its
// entries are added to the index, the index's own entry is kept as it was, and both restores
// read back.
func TestOpenClawRestoreBesideAnIndex(t *testing.T) {
	ctx := context.Background()
	for _, cs := range corpus(t) {
		if cs.name != "testdata" || cs.agent == "openclaw" {
			continue
		}
		var c adaptertest.Collector
		cs.read(t, &c)
		s := openStore(t)
		upsert(t, s, c.Events)
		ids := roots(ctx, t, s)
		if len(ids) < 2 {
			continue
		}
		out := t.TempDir()
		index := filepath.Join(out, "agents", "main", "sessions", "sessions.json")
		if err := os.MkdirAll(filepath.Dir(index), 0o700); err != nil {
			t.Fatal(err)
		}
		const theirs = `{"agent:main:main": {"sessionId": "5a1e0000-0000-4000-8000-000000000001", "updatedAt": 1}}`
		if err := os.WriteFile(index, []byte(theirs), 0o600); err != nil {
			t.Fatal(err)
		}
		var outs []*resume.Outcome
		for _, id := range ids[:2] {
			o, err := resume.Restore(ctx, archive{s}, resume.Request{Env: rowsEnv, Session: id, To: "openclaw", OutDir: out, Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			if o.Status != resume.OK {
				t.Fatalf("restore %s from %s beside an index: %s: %s", id, cs.agent, o.Status, o.Message)
			}
			outs = append(outs, o)
		}
		data, err := os.ReadFile(index)
		if err != nil {
			t.Fatal(err)
		}
		var entries map[string]struct {
			SessionID string `json:"sessionId"`
		}
		if err := json.Unmarshal(data, &entries); err != nil {
			t.Fatalf("sessions.json after two restores: %v\n%s", err, data)
		}
		if entries["agent:main:main"].SessionID != "5a1e0000-0000-4000-8000-000000000001" {
			t.Errorf("the index's own entry changed:\n%s", data)
		}
		var back adaptertest.Collector
		readBack(t, "openclaw", out, outs[0], &back)
		got := back.Sessions()
		for _, o := range outs {
			if entries["agent:main:pond-"+o.ID].SessionID != o.ID {
				t.Errorf("sessions.json has no entry for the restored %s:\n%s", o.ID, data)
			}
			if _, ok := got[o.ID]; !ok {
				t.Errorf("OpenClaw's adapter does not read the restored %s back (found %v)", o.ID, keys(got))
			}
		}
		return
	}
	t.Fatal("no fixture with two sessions to restore")
}
