package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// The paginated fixture: one thread of Codex 0.169.0 (its own rollout, written against the fake
// model: a turn with a tool call) continued in a second file, as Codex continues a paginated
// thread (openai/codex#31433): the same id in session_meta, a history_base pointing at the first
// file's end, the name rollout-<time>-<thread id>_<rollout id>.jsonl, and the thread's context
// items recorded again at its start, with their own ids. Codex 0.171.0 itself resumes the pair
// as one thread (`codex exec resume <id>` with the folder as CODEX_HOME sends both files' turns
// to the model; checked by hand, and by make verify-agents through resume's corpus). Codex
// 0.169–0.171 do not write such a pair when resuming or migrating here (both append or rewrite
// in place), so the fixture is assembled from one genuine run.
const (
	pagedRoot    = "testdata/paginated"
	pagedID      = "01a236da-21b4-7dd0-adc0-bd3180773c5d"
	pagedSegment = "01a2371c-5e00-7a11-8b22-0c3d4e5f6a7b"
	pagedBase    = "sessions/2026/12/02/rollout-2026-12-02T13-03-14-" + pagedID + ".jsonl"
	pagedCont    = "sessions/2026/12/02/rollout-2026-12-02T13-40-00-" + pagedID + "_" + pagedSegment + ".jsonl"
)

func TestPaginatedThreadIsOneSession(t *testing.T) {
	var c adaptertest.Collector
	adaptertest.ReadRoot(t, New(), adapters.Env{}, pagedRoot, nil, &c)
	if len(c.Bad) > 0 || len(c.Drift) > 0 {
		t.Errorf("malformed %v, unknown %v", c.Bad, c.Drift)
	}
	var sessions []session.Session
	for _, e := range c.Events {
		if e.Session != nil {
			sessions = append(sessions, *e.Session)
		}
	}
	if len(sessions) != 2 {
		t.Fatalf("%d session events, want one per file", len(sessions))
	}
	if diff := cmp.Diff(sessions[0], sessions[1]); diff != "" {
		t.Errorf("the two files describe the session differently (-first +second):\n%s", diff)
	}
	if s := sessions[0]; s.ID != pagedID || s.Project != "/home/dev/shop" || s.ParentSessionID != "" {
		t.Errorf("session %+v, want %s in /home/dev/shop without a parent", s, pagedID)
	}

	// Every line of both files is a message of the one session, each under its own key.
	lines := len(fileLines(t, filepath.Join(pagedRoot, pagedBase))) + len(fileLines(t, filepath.Join(pagedRoot, pagedCont)))
	msgs := c.Messages()
	keys := map[string]bool{}
	for _, m := range msgs {
		if m.SessionID != pagedID {
			t.Errorf("message %s of session %s", m.ID, m.SessionID)
		}
		keys[m.ID] = true
	}
	if len(msgs) != lines || len(keys) != lines {
		t.Errorf("%d messages under %d keys, want one for each of the %d lines", len(msgs), len(keys), lines)
	}
	// The continuation repeats item ids of the first file: without the segment's name in its
	// ids, they would be the same keys, and the store would keep only one of each.
	repeated := 0
	for id := range keys {
		if base, ok := strings.CutSuffix(id, "@"+pagedSegment); ok {
			if keys[base] && strings.HasPrefix(base, "msg_") {
				repeated++
			}
		}
	}
	if repeated == 0 {
		t.Error("the continuation repeats no item id of the first file: the fixture no longer tests a collision")
	}
	var inCont, tools int
	for _, m := range msgs {
		file := restore.Source(m.Options["source"]).Str("file")
		if strings.HasSuffix(m.ID, "@"+pagedSegment) != (file != "") {
			t.Errorf("message %s: options.source.file %q", m.ID, file)
		}
		if file != "" {
			inCont++
			if file != filepath.Base(pagedCont) {
				t.Errorf("message %s: options.source.file %q, want %q", m.ID, file, filepath.Base(pagedCont))
			}
		}
	}
	for _, p := range c.Parts() {
		if p.Type == session.PartToolCall || p.Type == session.PartToolResult {
			tools++
		}
	}
	if want := len(fileLines(t, filepath.Join(pagedRoot, pagedCont))); inCont != want {
		t.Errorf("%d messages from the continuation, want %d", inCont, want)
	}
	if tools != 2 {
		t.Errorf("%d tool parts, want the call and its result", tools)
	}
	searched := searchTexts(&c)
	for _, want := range []string{"list the files here", "There is one file, notes.txt.", "and now say done", "Done."} {
		found := false
		for _, text := range searched {
			found = found || strings.Contains(text, want)
		}
		if !found {
			t.Errorf("no searchable text holds %q", want)
		}
	}
}

// TestPaginatedRestore: a native restore writes both files back, named as Codex named them, and
// reads back as the stored session.
func TestPaginatedRestore(t *testing.T) {
	var c adaptertest.Collector
	adaptertest.ReadRoot(t, New(), adapters.Env{}, pagedRoot, nil, &c)
	ts := c.Transcripts()
	root := t.TempDir()
	plan, err := New().Encode(&restore.Job{Batch: []*restore.Transcript{ts[pagedID]}, Native: true, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var files []restore.File
	for _, f := range plan.Files {
		rel, err := filepath.Rel(root, f.Path)
		if err != nil || !filepath.IsLocal(rel) {
			t.Fatalf("%s is not under %s", f.Path, root)
		}
		names = append(names, filepath.ToSlash(rel))
		writeFile(t, f.Path, f.Data)
		files = append(files, f.File)
		orig, err := os.ReadFile(filepath.Join(pagedRoot, rel))
		if err != nil {
			t.Fatal(err)
		}
		if string(orig) != string(f.Data) {
			t.Errorf("%s: the replay differs from the original", rel)
		}
	}
	if diff := cmp.Diff([]string{pagedBase, pagedCont}, names); diff != "" {
		t.Errorf("restored files (-want +got):\n%s", diff)
	}
	var back adaptertest.Collector
	adaptertest.ReadRoot(t, New(), adapters.Env{}, root, nil, &back)
	adaptertest.CheckNativeRestore(t, adaptertest.Events(ts[pagedID]), files, &back, false)
}

// TestSegmentOf: which files are later segments of a thread, and under which name.
func TestSegmentOf(t *testing.T) {
	self := `{"history_base":{"thread_id":"` + pagedID + `","end_ordinal_exclusive":3,"end_byte_offset":10}}`
	fork := `{"history_base":{"thread_id":"0195a0c1-7e2b-7c41-9d3e-5b6f7a8b9c0d","end_ordinal_exclusive":3,"end_byte_offset":10}}`
	tests := []struct {
		name, file, meta, want string
	}{
		{"own_file", "rollout-2026-12-02T13-03-14-" + pagedID + ".jsonl", `{}`, ""},
		{"dual_name", "rollout-2026-12-02T13-40-00-" + pagedID + "_" + pagedSegment + ".jsonl", self, pagedSegment},
		{"dual_name_without_base", "rollout-2026-12-02T13-40-00-" + pagedID + "_" + pagedSegment + ".jsonl.zst", `{}`, pagedSegment},
		{"self_base_same_name", "rollout-2026-12-03T08-00-00-" + pagedID + ".jsonl", self, "2026-12-03T08-00-00"},
		{"fork", "rollout-2026-12-03T08-00-00-" + pagedID + ".jsonl", fork, ""},
		{"other_thread_in_name", "rollout-2026-12-03T08-00-00-" + pagedSegment + "_" + pagedID + ".jsonl", `{}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := segmentOf(tt.file, parseObject([]byte(tt.meta)), pagedID); got != tt.want {
				t.Errorf("segmentOf(%s, %s) = %q, want %q", tt.file, tt.meta, got, tt.want)
			}
		})
	}
}

// TestPaginatedResumedRead: a continuation read as it grows gives the keys of a whole read.
func TestPaginatedResumedRead(t *testing.T) {
	lines := fileLines(t, filepath.Join(pagedRoot, pagedCont))
	path := filepath.Join(t.TempDir(), filepath.Base(pagedCont))
	half := len(lines) / 2
	writeFile(t, path, []byte(strings.Join(lines[:half], "\n")+"\n"))
	var grown adaptertest.Collector
	cur := adaptertest.ReadSource(t, New(), adapters.Env{}, "k", path, adapters.Cursor{}, &grown)
	appendFile(t, path, []byte(strings.Join(lines[half:], "\n")+"\n"))
	adaptertest.ReadSource(t, New(), adapters.Env{}, "k", path, cur, &grown)
	whole, _ := readFile(t, path)
	ids := func(c *adaptertest.Collector) (out []string) {
		for _, m := range c.Messages() {
			out = append(out, m.ID)
		}
		return out
	}
	if diff := cmp.Diff(ids(whole), ids(&grown)); diff != "" {
		t.Errorf("message ids (-whole +grown):\n%s", diff)
	}
	if got := ids(whole); !strings.HasSuffix(got[len(got)-1], "@"+pagedSegment) {
		t.Errorf("last id %s lacks the segment", got[len(got)-1])
	}
}
