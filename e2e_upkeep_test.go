package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// TestDaemonUpkeep runs the real daemon with the test model installed: it embeds what the
// start-up sync captured without being asked; once live capture has left a small fragment per
// new session it compacts them and prunes the replaced versions; and pond optimize goes
// through it, diagnosing with no flags and running what is due with --run.
func TestDaemonUpkeep(t *testing.T) {
	modelDir := os.Getenv("POND_TEST_MODEL_DIR")
	if modelDir == "" {
		t.Fatal("POND_TEST_MODEL_DIR must be set: run the tests with make test")
	}
	bin := pondBinary(t)
	home, env := isolatedHome(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, args := range [][]string{{"consent", "grant"}, {"model", "install", "--from", modelDir}} {
		if out, code := run(t, bin, env, args...); code != 0 {
			t.Fatalf("pond %v: %d %s", args, code, out)
		}
	}
	// The default keep time: a local archive keeps no replaced version no read is on.
	d := startDaemon(t, bin, env, home, "--upkeep-every", "1s")

	var mu sync.Mutex
	var runs []view.Upkeep
	go d.client.Watch(ctx, "", func(ev apitype.Event) error {
		if ev.Type == apitype.EventUpkeepFinished {
			var u view.Upkeep
			if err := json.Unmarshal(ev.Data, &u); err != nil {
				t.Errorf("upkeep_finished %s: %v", ev.Data, err)
			}
			mu.Lock()
			runs = append(runs, u)
			mu.Unlock()
		}
		return nil
	})
	ran := func(trigger, did string) bool {
		mu.Lock()
		defer mu.Unlock()
		for _, u := range runs {
			if u.Trigger == trigger && strings.Contains(strings.Join(u.Did, "\n"), did) {
				return true
			}
		}
		return false
	}
	embedded := func() bool {
		st, err := d.client.Status(ctx)
		return err == nil && st.Messages > 0 && st.Embeddings.Embedded > 0 && st.Embeddings.Pending == 0
	}
	waitFor(t, "the start-up capture to be embedded", embedded)

	// Live capture: each new session is a commit, so a small fragment and a version per table.
	live := filepath.Join(home, ".claude", "projects", "-srv-live")
	for i := range 10 {
		id := fmt.Sprintf("5e5e5e5e-0000-4000-8000-%012d", i)
		writeSession(t, live, id)
		waitFor(t, "session "+id, func() bool {
			return sqlCount(t, d.client, "SELECT count(*) AS n FROM sessions WHERE session_id = '"+id+"'") == 1
		})
	}
	waitFor(t, "the live sessions to be embedded", embedded)
	waitFor(t, "an automatic compaction", func() bool { return ran("auto", "compacted messages") })
	waitFor(t, "an automatic prune", func() bool { return ran("auto", "pruned") })
	if st, err := d.client.Status(ctx); err != nil || st.Upkeep == nil || st.Upkeep.Error != "" {
		t.Fatalf("status: %+v, %v; want the last upkeep's outcome", st, err)
	}

	// pond optimize with no flags: the daemon's diagnosis, with its model.
	out, code := run(t, bin, env, "optimize", "--keep-versions", "0s", "--format", "json")
	var diag apitype.OptimizeResponse
	if code != 0 || json.Unmarshal([]byte(out), &diag) != nil || diag.Report != nil || diag.Diagnosis == nil ||
		len(diag.Diagnosis.Tables) != 3 || !strings.HasPrefix(diag.Diagnosis.Embeddings.Model, "intfloat/e5-small-v2") {
		t.Fatalf("pond optimize: %d %s", code, out)
	}
	if out, code := run(t, bin, env, "optimize"); code != 0 || !strings.Contains(out, "embedded by intfloat/e5-small-v2") {
		t.Fatalf("pond optimize (text): %d %s", code, out)
	}
	// --run goes through the daemon: its event stream reports a requested run.
	out, code = run(t, bin, env, "optimize", "--run", "--format", "json")
	var rep apitype.OptimizeResponse
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Report == nil || rep.Report.After == nil {
		t.Fatalf("pond optimize --run: %d %s", code, out)
	}
	waitFor(t, "the requested run on the daemon's stream", func() bool { return ran("request", "") })
	for _, ts := range rep.Report.After.Tables {
		if ts.OldVersions != 0 || ts.SmallFragments >= 8 {
			t.Errorf("%s after pond optimize --run: %+v; want compacted and pruned", ts.Table, ts)
		}
	}
}
