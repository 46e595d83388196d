package aider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// TestForeignReadsBack rebuilds a conversation Aider's idiom has trouble with (two replies in a
// row, two calls made at once, a result of several lines, a multi-line command) and reads the
// run back: Pond's note first, every reply on its own, every call answered by its own result.
func TestForeignReadsBack(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	text := func(s string) session.Part {
		return session.Part{Type: session.PartText, Provenance: session.Conversational, Text: s}
	}
	call := func(id, name, params string) session.Part {
		return session.Part{Type: session.PartToolCall, CallID: id, Name: name, Params: json.RawMessage(params)}
	}
	result := func(id, out string) session.Part {
		r, _ := json.Marshal(out)
		return session.Part{Type: session.PartToolResult, CallID: id, Result: r}
	}
	tr := &restore.Transcript{
		Session: session.Session{ID: "orig-1", SourceAgent: "codex-cli", Project: "/work/app", CreatedAt: at},
		Messages: []session.Message{
			{ID: "m1", Role: session.RoleUser, Timestamp: at},
			{ID: "m2", Role: session.RoleAssistant, Timestamp: at},
			{ID: "m3", Role: session.RoleAssistant, Timestamp: at},
			{ID: "m4", Role: session.RoleTool, Timestamp: at},
			{ID: "m5", Role: session.RoleAssistant, Timestamp: at},
		},
		Parts: map[string][]session.Part{
			"m1": {text("list the files")},
			"m2": {text("Looking."), text("Still looking.")},
			"m3": {call("c1", "shell", `{"command":["ls","-la"]}`), call("c2", "Bash", `{"command":"cat <<EOF\nx\nEOF"}`)},
			"m4": {result("c1", "a.go  \nb.go\n\nc.go"), result("c2", "x")},
			"m5": {text("Done.")},
		},
	}
	dir := t.TempDir()
	plan, err := Adapter{}.Encode(&restore.Job{Batch: []*restore.Transcript{tr}, Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	f := plan.Files[0]
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.Path, f.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	var c adaptertest.Collector
	readFile(t, filepath.ToSlash(f.Path), f.Path, adapters.Cursor{}, &c)
	if len(c.Bad) > 0 {
		t.Fatalf("malformed: %v\n%s", c.Bad, f.Data)
	}
	var texts []string
	calls := map[string]string{}
	results := map[string][]string{}
	for _, e := range c.Events {
		p := e.Part
		if p == nil {
			continue
		}
		switch {
		case p.Type == session.PartText && p.Provenance == session.Conversational:
			texts = append(texts, p.Text)
		case p.Type == session.PartToolCall:
			var args struct{ Command string }
			_ = json.Unmarshal(p.Params, &args)
			calls[p.CallID] = args.Command
		case p.Type == session.PartToolResult:
			var out string
			_ = json.Unmarshal(p.Result, &out)
			results[p.CallID] = append(results[p.CallID], out)
		}
	}
	if len(texts) == 0 || !strings.HasPrefix(texts[0], "[Restored by Pond]") {
		t.Fatalf("the first text is not Pond's note: %q\n%s", texts, f.Data)
	}
	if diff := cmp.Diff([]string{"list the files", "Looking.", "Still looking.", "Done."}, texts[1:]); diff != "" {
		t.Errorf("texts (-want +got):\n%s\n%s", diff, f.Data)
	}
	var gotCalls, gotResults []string
	for id, cmd := range calls {
		if len(results[id]) != 1 {
			t.Errorf("call %s (%s) has results %q, want one", id, cmd, results[id])
			continue
		}
		gotCalls = append(gotCalls, cmd)
		gotResults = append(gotResults, results[id][0])
	}
	want := map[string]string{"ls -la": "a.go\nb.go\n\nc.go", `Bash {"command":"cat <<EOF\nx\nEOF"}`: "x"}
	if len(calls) != len(want) {
		t.Errorf("calls %q, want %d", calls, len(want))
	}
	for i, cmd := range gotCalls {
		if w, ok := want[cmd]; !ok || w != gotResults[i] {
			t.Errorf("call %q answered %q; want one of %q", cmd, gotResults[i], want)
		}
	}
}
