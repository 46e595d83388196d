package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
)

func messageKeys(msgs []session.Message) []session.Key {
	var out []session.Key
	for _, m := range msgs {
		out = append(out, session.Key{SessionID: m.SessionID, MessageID: m.ID})
	}
	return out
}

// TestIncremental grows a rollout the way Codex writes it and reads it from the cursors in
// between: each read emits the session again and then only what is new, and the reads together
// equal one read of the whole file.
func TestIncremental(t *testing.T) {
	a, env := New(), adapters.Env{}
	root := t.TempDir()
	dst := filepath.Join(root, filepath.FromSlash(mainKey))
	data, err := os.ReadFile(filepath.Join(testRoot, filepath.FromSlash(mainKey)))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")

	// Read 1: up to the exec_command_end that reports the failed test; the output comes later.
	writeFile(t, dst, []byte(strings.Join(lines[:12], "")))
	var c1 adaptertest.Collector
	cur := adaptertest.ReadRoot(t, a, env, root, nil, &c1)
	if got := c1.Counts(); got.Messages != 12 {
		t.Fatalf("read 1: %v, want 12 messages", got)
	}

	// Read 2: the rest, a user message that repeats an id of read 1, and a half-written line.
	again := `{"timestamp":"2026-03-14T12:16:00.000Z","type":"response_item","payload":{"type":"message","id":"msg_user_1","role":"user","content":[{"type":"input_text","text":"again"}]}}` + "\n"
	half := `{"timestamp":"2026-03-14T12:16:01.000Z","type":"response_item","payload":{"type":"message","id":"msg_asst_2","role":"assistant","content":[{"type":"output_text","text":"Done ag`
	appendFile(t, dst, []byte(strings.Join(lines[12:], "")+again+half))
	var c2 adaptertest.Collector
	cur = adaptertest.ReadRoot(t, a, env, root, cur, &c2)
	if len(c2.Events) == 0 || c2.Events[0].Session == nil || c2.Events[0].Session.ID != mainID {
		t.Fatalf("read 2 does not start with the session")
	}
	seen := map[string]bool{}
	for _, m := range c1.Messages() {
		seen[m.ID] = true
	}
	var ids []string
	for _, m := range c2.Messages() {
		if seen[m.ID] {
			t.Errorf("read 2 emitted message %s of read 1 again", m.ID)
		}
		ids = append(ids, m.ID)
	}
	if ids[len(ids)-1] != "msg_user_1-2" {
		t.Errorf("read 2 ends with %q, want the repeated id suffixed msg_user_1-2", ids[len(ids)-1])
	}
	// The call, its failure and its name came from read 1's state.
	for _, p := range c2.Parts() {
		if p.Type == session.PartToolResult && p.CallID == "call_test1" && (p.Name != "exec_command" || !p.IsFailure) {
			t.Errorf("result of call_test1: name %q failure %v; want exec_command, failed", p.Name, p.IsFailure)
		}
	}

	// Read 3: the half-written line is completed.
	appendFile(t, dst, []byte(`ain."}]}}`+"\n"))
	var c3 adaptertest.Collector
	cur = adaptertest.ReadRoot(t, a, env, root, cur, &c3)
	if got := c3.Counts(); got != (adaptertest.Counts{Sessions: 1, Messages: 1, Parts: 1}) {
		t.Errorf("read 3: %v, want the session and the completed message", got)
	}

	// Nothing new: nothing emitted, whether the stamp is unchanged or only the time moved.
	var c4 adaptertest.Collector
	cur = adaptertest.ReadRoot(t, a, env, root, cur, &c4)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(dst, later, later); err != nil {
		t.Fatal(err)
	}
	cur = adaptertest.ReadRoot(t, a, env, root, cur, &c4)
	if len(c4.Events) != 0 || len(c4.Bad) != 0 {
		t.Errorf("unchanged file: %d events, %d malformed; want none", len(c4.Events), len(c4.Bad))
	}

	// The reads together equal one read of the whole file.
	whole, _ := readFile(t, dst)
	got := append(append(c1.Messages(), c2.Messages()...), c3.Messages()...)
	if diff := cmp.Diff(whole.Messages(), got); diff != "" {
		t.Errorf("incremental messages differ from a whole read (-whole +incremental):\n%s", diff)
	}
	gotParts := append(append(c1.Parts(), c2.Parts()...), c3.Parts()...)
	if diff := cmp.Diff(whole.Parts(), gotParts); diff != "" {
		t.Errorf("incremental parts differ from a whole read (-whole +incremental):\n%s", diff)
	}

	// Rewritten before the cursor (a blank line in front): read again from the start, with the
	// same keys.
	final, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dst, append([]byte("\n"), final...))
	var c5 adaptertest.Collector
	adaptertest.ReadRoot(t, a, env, root, cur, &c5)
	if diff := cmp.Diff(messageKeys(whole.Messages()), messageKeys(c5.Messages())); diff != "" {
		t.Errorf("rewritten file: keys differ (-before +after):\n%s", diff)
	}

	// The same rollout compressed (as Codex archives it) yields the same messages and parts.
	zroot := t.TempDir()
	zpath := filepath.Join(zroot, "archived_sessions", filepath.Base(dst)+".zst")
	writeFile(t, zpath, compress(t, final))
	var cz adaptertest.Collector
	adaptertest.ReadRoot(t, a, env, zroot, nil, &cz)
	if diff := cmp.Diff(whole.Messages(), cz.Messages()); diff != "" {
		t.Errorf("compressed rollout: messages differ (-plain +zst):\n%s", diff)
	}
	if diff := cmp.Diff(whole.Parts(), cz.Parts()); diff != "" {
		t.Errorf("compressed rollout: parts differ (-plain +zst):\n%s", diff)
	}
}

// TestIncrementalForeignCursor starts over when the cursor's state is not this adapter's.
func TestIncrementalForeignCursor(t *testing.T) {
	path := filepath.Join(testRoot, filepath.FromSlash(subKey))
	_, cur := readFile(t, path)
	cur.State = []byte(`{"seen":"AAA="}`) // 2 bytes: not whole digests
	cur.Stamp = "changed"
	var c adaptertest.Collector
	if _, err := New().Read(t.Context(), adapters.Env{}, sourceOf(t, path), cur, &c); err != nil {
		t.Fatal(err)
	}
	if got := c.Counts(); got.Messages != 6 {
		t.Errorf("foreign cursor: %v, want a whole read (6 messages)", got)
	}
}

// TestIncrementalEveryLine reads every fixture one appended line at a time and compares with a
// whole read.
func TestIncrementalEveryLine(t *testing.T) {
	tests := []struct {
		key string
		// sameSession: the first line read alone decides the session as the whole file does.
		// Not so when the header has no cwd (the legacy header; the mismatch fixture's
		// session_meta, which real ones always have): read alone it gives the project
		// "unknown", where the whole read finds a later cwd.
		sameSession bool
	}{
		{mainKey, true}, {subKey, true}, {forkKey, true}, {mismKey, false}, {legacyKey, false},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.key), func(t *testing.T) {
			checkEveryLine(t, filepath.Join(testRoot, filepath.FromSlash(tt.key)), tt.sameSession)
		})
	}
}

// checkEveryLine grows a copy of path one line at a time, reading after each line, and checks
// that the message and part keys equal those of one whole read, and so do the messages and parts
// themselves whenever the first line alone decided the same session (which sameSession demands).
func checkEveryLine(t *testing.T, path string, sameSession bool) {
	t.Helper()
	data := []byte(strings.Join(fileLines(t, path), "\n") + "\n")
	whole := filepath.Join(t.TempDir(), filepath.Base(strings.TrimSuffix(path, ".zst")))
	writeFile(t, whole, data)
	want, _ := readFile(t, whole)

	grown := filepath.Join(t.TempDir(), filepath.Base(whole))
	writeFile(t, grown, nil)
	var cur adapters.Cursor
	var msgs []session.Message
	var parts []session.Part
	sessions := map[string]session.Session{}
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if line == "" {
			continue
		}
		appendFile(t, grown, []byte(line))
		var c adaptertest.Collector
		var err error
		if cur, err = New().Read(t.Context(), adapters.Env{}, sourceOf(t, grown), cur, &c); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, c.Messages()...)
		parts = append(parts, c.Parts()...)
		for id, s := range c.Sessions() {
			sessions[id] = s
		}
	}
	if diff := cmp.Diff(messageKeys(want.Messages()), messageKeys(msgs)); diff != "" {
		t.Errorf("message keys (-whole +line by line):\n%s", diff)
	}
	if diff := cmp.Diff(partKeys(want.Parts()), partKeys(parts)); diff != "" {
		t.Errorf("part keys (-whole +line by line):\n%s", diff)
	}
	if diff := cmp.Diff(want.Sessions(), sessions); diff != "" {
		if sameSession {
			t.Errorf("sessions (-whole +line by line):\n%s", diff)
		}
		return
	}
	if diff := cmp.Diff(want.Messages(), msgs); diff != "" {
		t.Errorf("messages (-whole +line by line):\n%s", diff)
	}
	if diff := cmp.Diff(want.Parts(), parts); diff != "" {
		t.Errorf("parts (-whole +line by line):\n%s", diff)
	}
}

func partKeys(parts []session.Part) []session.Key {
	var out []session.Key
	for _, p := range parts {
		out = append(out, session.Key{SessionID: p.SessionID, MessageID: p.MessageID, PartID: p.ID})
	}
	return out
}

// BenchmarkRead reads a large rollout whole: the main fixture's lines repeated 200 times (so its
// item ids repeat too).
func BenchmarkRead(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(testRoot, filepath.FromSlash(mainKey)))
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), filepath.Base(mainKey))
	writeFile(b, path, bytes.Repeat(data, 200))
	src := sourceOf(b, path)
	b.SetBytes(src.Size)
	b.ResetTimer()
	for b.Loop() {
		var c adaptertest.Collector
		cur, err := New().Read(b.Context(), adapters.Env{}, src, adapters.Cursor{}, &c)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(cur.State)), "state-bytes")
	}
}
