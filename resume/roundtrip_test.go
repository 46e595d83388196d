package resume_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/all"
	restorecontract "github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/resume"
	"github.com/pondhq/pond/session"
)

// TestNativeRoundTrip: every fixture session of every agent is parsed, stored in a real
// store, restored into the same agent under a fresh root, and parsed again; the sessions,
// messages and parts must come out equal (up to where the file was read from). For OpenCode,
// whose restore is an import document, the document is unpacked into OpenCode's JSON tree and
// read from there: ids, roles, text, tools and times must match; the rows become files, so
// options.source is not compared.
func TestNativeRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, cs := range corpus(t) {
		t.Run(cs.agent+"/"+cs.name, func(t *testing.T) {
			var c adaptertest.Collector
			cs.read(t, &c)
			if len(c.Events) == 0 {
				t.Fatal("the fixture produced no events")
			}
			if !slices.Contains(resume.Targets(), cs.agent) {
				t.Skipf("%s is captured only (TestRefusals checks its refusal)", cs.agent)
			}
			s := openStore(t)
			upsert(t, s, c.Events)
			for _, id := range roots(ctx, t, s) {
				out := t.TempDir()
				o, err := resume.Restore(ctx, archive{s}, resume.Request{Env: rowsEnv, Session: id, To: cs.agent, OutDir: out, Now: fixedNow})
				if err != nil {
					t.Fatal(err)
				}
				if o.Status != resume.OK {
					t.Fatalf("restore %s: %s: %s", id, o.Status, o.Message)
				}
				var want []session.Event
				for _, f := range o.Files {
					if f.Sidecar {
						continue
					}
					for _, id := range append([]string{f.Session}, f.Includes...) {
						tr, err := s.ReadTranscript(ctx, id)
						if err != nil {
							t.Fatal(err)
						}
						want = append(want, tr.Events()...)
					}
				}
				var back adaptertest.Collector
				readBack(t, cs.agent, out, o, &back)
				a, _ := all.ByName(cs.agent)
				_, takenIn := a.(restorecontract.ReadBacker)
				adaptertest.CheckNativeRestore(t, want, o.Files, &back, takenIn)
				checkFiles(t, cs.agent, o)
			}
		})
	}
}

// readBack parses what a restore wrote with the target's own adapter.
func readBack(t *testing.T, agent, root string, o *resume.Outcome, c *adaptertest.Collector) {
	a, _ := all.ByName(agent)
	if rb, ok := a.(restorecontract.ReadBacker); ok {
		var err error
		if root, err = rb.ReadBackRoot(o.Files, t.TempDir()); err != nil {
			t.Fatal(err)
		}
	}
	adaptertest.ReadRoot(t, a, testEnv(root), root, nil, c)
}

// checkFiles compares restored files with their originals at the JSON level where the format
// allows: each JSONL record equals the original line (malformed lines become blank lines; a
// line that held several objects glued together, which Qwen Code reads, holds them again).
func checkFiles(t *testing.T, agent string, o *resume.Outcome) {
	for _, f := range o.Files {
		if f.Sidecar || !strings.HasSuffix(f.Path, ".jsonl") {
			continue
		}
		b, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if line == "" {
				continue
			}
			dec := json.NewDecoder(strings.NewReader(line))
			for {
				var v any
				if err := dec.Decode(&v); err == io.EOF {
					break
				} else if err != nil {
					t.Errorf("%s:%d: not JSON: %v", f.Path, i+1, err)
					break
				}
			}
		}
		info, err := os.Stat(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !info.ModTime().Equal(fixedNow()) {
			t.Errorf("%s: mtime %v, want the restore's time %v", f.Path, info.ModTime(), fixedNow())
		}
	}
}
