package pi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
)

var update = flag.Bool("update", false, "rewrite the golden event streams in testdata/golden")

// The fixtures in testdata/agent, written for these tests in pi's layout and shape.
const (
	testRoot = "testdata/agent"

	mainID  = "7f3c2a10-5b6e-4c1d-9a8f-0e1d2c3b4a59" // v3: tools, thinking, a branch, compaction, every entry type
	forkID  = "c4d5e6f7-1111-4222-8333-944455556666" // v3 fork of main, cut after a1000009
	v2ID    = "5e6f7a8b-2222-4333-8444-a55566677788" // v2: ids, the hookMessage role
	v1ID    = "0b1c2d3e-aaaa-4bbb-8ccc-dddddddddddd" // v1: no ids, a repeated line, records without times
	mainKey = "sessions/--home-user-proj--/2026-03-02T09-15-00-000Z_" + mainID + ".jsonl"
	forkKey = "sessions/--home-user-proj--/2026-03-02T10-00-00-000Z_" + forkID + ".jsonl"
	v2Key   = "sessions/--home-user-proj--/2025-12-10T12-00-00-000Z_" + v2ID + ".jsonl"
	v1Key   = "sessions/--home-user-legacy--/2025-11-20T08-00-00-000Z_" + v1ID + ".jsonl"
)

// readFile reads one file from the start.
func readFile(t testing.TB, path string) (*adaptertest.Collector, adapters.Cursor) {
	t.Helper()
	var c adaptertest.Collector
	cur, err := New().Read(context.Background(), adapters.Env{}, source(t, path), adapters.Cursor{}, &c)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return &c, cur
}

func source(t testing.TB, path string) adapters.Source {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return adapters.Source{Key: path, Path: path, Stamp: adapters.FileStamp(info), Size: info.Size(), ModTime: info.ModTime()}
}

func readRoot(t testing.TB, root string, cursors map[string]adapters.Cursor) (*adaptertest.Collector, map[string]adapters.Cursor) {
	t.Helper()
	var c adaptertest.Collector
	next := adaptertest.ReadRoot(t, New(), adaptertest.FakeEnv("linux", t.TempDir(), nil), root, cursors, &c)
	return &c, next
}

// sourceOpt is a message's options.source.
type sourceOpt struct {
	Record           json.RawMessage `json:"record"`
	ParentID         string          `json:"parent_id"`
	FirstKeptEntryID string          `json:"first_kept_entry_id"`
	FromID           string          `json:"from_id"`
	TargetID         string          `json:"target_id"`
	File             string          `json:"file"`
	Line             int             `json:"line"`
}

func sourceOf(t testing.TB, o session.Options) sourceOpt {
	t.Helper()
	var s sourceOpt
	if raw, ok := o["source"]; ok {
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("options.source %s: %v", raw, err)
		}
	}
	return s
}

func TestReadCounts(t *testing.T) {
	tests := []struct {
		key   string
		want  adaptertest.Counts
		drift []string
	}{
		{mainKey, adaptertest.Counts{Sessions: 1, Messages: 24, Parts: 20, Malformed: 1}, []string{`entry type "tool_disclosure"`}},
		{forkKey, adaptertest.Counts{Sessions: 1, Messages: 12, Parts: 10}, nil},
		{v2Key, adaptertest.Counts{Sessions: 1, Messages: 3, Parts: 3}, nil},
		{v1Key, adaptertest.Counts{Sessions: 1, Messages: 9, Parts: 5}, nil},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(filepath.Dir(tt.key))+"/"+tt.key[len(tt.key)-14:], func(t *testing.T) {
			c, _ := readFile(t, filepath.Join(testRoot, tt.key))
			if got := c.Counts(); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			var drift []string
			for _, d := range c.Drift {
				drift = append(drift, d.What)
			}
			if diff := cmp.Diff(tt.drift, drift); diff != "" {
				t.Errorf("drift (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMalformedLine(t *testing.T) {
	c, _ := readFile(t, filepath.Join(testRoot, mainKey))
	if len(c.Bad) != 1 || c.Bad[0].At.Line != 25 || !strings.HasSuffix(c.Bad[0].At.Path, mainKey) {
		t.Fatalf("got %+v, want one report at line 25 of the main session", c.Bad)
	}
	// Reading went on after it.
	last := c.Messages()[len(c.Messages())-1]
	if src := sourceOf(t, last.Options); last.ID != "a1000019" || src.Line != 26 {
		t.Errorf("last message %s from line %d, want a1000019 from line 26, after the malformed one", last.ID, src.Line)
	}
}

// TestMessages checks every message of the main session: id, role, tree parent, content and the
// facts kept in options.source.
func TestMessages(t *testing.T) {
	type row struct {
		ID, Role, Parent, Content, Extra string
	}
	c, _ := readFile(t, filepath.Join(testRoot, mainKey))
	var got []row
	for _, m := range c.Messages() {
		s := sourceOf(t, m.Options)
		got = append(got, row{m.ID, string(m.Role), s.ParentID, trunc(m.Content), s.FirstKeptEntryID + s.FromID + s.TargetID})
	}
	want := []row{
		{"a1000001", "system", "", "", ""},         // model_change (root)
		{"a1000002", "system", "a1000001", "", ""}, // thinking_level_change
		{"a1000003", "system", "a1000002", "You are an expert coding assistant operating inside pi, a coding…", ""}, // system message: sections
		{"a1000004", "user", "a1000003", "", ""},
		{"a1000005", "assistant", "a1000004", "", ""},
		{"a1000006", "tool", "a1000005", "", ""},
		{"a1000007", "assistant", "a1000006", "", ""},
		{"a1000008", "tool", "a1000007", "", ""},
		{"a1000009", "assistant", "a1000008", "", ""},
		{"a100000a", "user", "a1000009", "", ""}, // first branch
		{"a100000b", "assistant", "a100000a", "", ""},
		{"a100000c", "system", "a1000009", "The user asked to fix the import and the assistant added `import…", "a1000009"}, // branch_summary: second branch
		{"a100000d", "user", "a100000c", "", ""},
		{"a100000e", "assistant", "a100000d", "", ""},
		{"a100000f", "user", "a100000e", "", ""}, // bashExecution
		{"a1000010", "user", "a100000f", "", ""}, // custom_message
		{"a1000011", "user", "a1000010", "", ""}, // custom message
		{"a1000012", "system", "a1000011", "The user asked why main.go fails to build: it calls fmt.Println …", "a100000d"}, // compaction
		{"a1000013", "user", "a1000012", "", ""},
		{"a1000014", "assistant", "a1000013", "", ""},
		{"a1000015", "system", "a1000014", "", "a1000009"}, // label
		{"a1000016", "system", "a1000015", "", ""},         // session_info
		{"a1000017", "system", "a1000016", "", ""},         // custom
		{"a1000019", "system", "a1000017", "", ""},         // unknown type
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func trunc(s string) string {
	if r := []rune(s); len(r) > 64 {
		return string(r[:64]) + "…"
	}
	return s
}

func TestParts(t *testing.T) {
	c, _ := readFile(t, filepath.Join(testRoot, mainKey))
	part := func(msg string, ord int, p session.Part) session.Part {
		p.SessionID, p.MessageID, p.Ordinal = mainID, msg, ord
		p.ID = msg + ":" + string(rune('0'+ord))
		return p
	}
	png, err := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		msg  string
		want []session.Part
	}{
		{"a1000004", []session.Part{
			part("a1000004", 0, session.Part{Type: session.PartText, Provenance: session.Conversational, Text: "Why does main.go fail to build?"}),
		}},
		{"a1000005", []session.Part{
			part("a1000005", 0, session.Part{Type: session.PartReasoning, Provenance: session.Conversational,
				Text:    "The user wants the build error explained. Read main.go first.",
				Options: session.Options{"source": json.RawMessage(`{"thinkingSignature":"EqQBCkYIBRgCKkDfixturesignature"}`)}}),
			part("a1000005", 1, session.Part{Type: session.PartText, Provenance: session.Conversational, Text: "Let me look at main.go."}),
			part("a1000005", 2, session.Part{Type: session.PartToolCall, Provenance: session.Conversational,
				CallID: "toolu_01ReadMain", Name: "read", Params: json.RawMessage(`{"path":"main.go"}`)}),
		}},
		{"a1000008", []session.Part{
			part("a1000008", 0, session.Part{Type: session.PartToolResult, Provenance: session.Conversational,
				CallID: "toolu_02Build", Name: "bash", IsFailure: true,
				Result: json.RawMessage(`[{"type":"text","text":"./main.go:3:15: undefined: fmt\n\nCommand exited with code 1"}]`)}),
		}},
		{"a100000d", []session.Part{
			part("a100000d", 0, session.Part{Type: session.PartText, Provenance: session.Conversational,
				Text: "Explain the error with this screenshot instead; don't edit anything."}),
			part("a100000d", 1, session.Part{Type: session.PartFile, Provenance: session.Conversational,
				MediaType: "image/png", Data: &session.FileData{Kind: session.FileBytes, Bytes: png}}),
		}},
		{"a100000f", []session.Part{
			part("a100000f", 0, session.Part{Type: session.PartToolCall, Provenance: session.Conversational,
				CallID: "a100000f", Name: "bash", Params: json.RawMessage(`{"command":"go vet ./..."}`)}),
			part("a100000f", 1, session.Part{Type: session.PartToolResult, Provenance: session.Conversational,
				CallID: "a100000f", Name: "bash", IsFailure: true,
				Result: json.RawMessage(`"# example.com/proj\n./main.go:3:15: undefined: fmt\n"`)}),
		}},
		{"a1000010", []session.Part{
			part("a1000010", 0, session.Part{Type: session.PartText, Provenance: session.Injected, Text: "Reminder: the todo list has 1 open item."}),
		}},
		{"a1000011", []session.Part{
			part("a1000011", 0, session.Part{Type: session.PartText, Provenance: session.Injected, Text: "Plan mode is active: do not modify files."}),
		}},
		{"a1000012", nil}, // compaction: no parts
		{"a1000003", nil}, // system prompt: no parts
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, c.PartsOf(mainID, tt.msg)); diff != "" {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestToolLinking checks that every tool result answers a call of its session.
func TestToolLinking(t *testing.T) {
	c, _ := readRoot(t, testRoot, nil)
	calls := map[string]map[string]string{} // session -> call id -> name
	for _, p := range c.Parts() {
		if p.Type == session.PartToolCall {
			if calls[p.SessionID] == nil {
				calls[p.SessionID] = map[string]string{}
			}
			calls[p.SessionID][p.CallID] = p.Name
		}
	}
	results := 0
	for _, p := range c.Parts() {
		if p.Type != session.PartToolResult {
			continue
		}
		results++
		if name, ok := calls[p.SessionID][p.CallID]; !ok || name != p.Name {
			t.Errorf("%s/%s: result for %s (%s) answers no call of its session", p.SessionID, p.ID, p.CallID, p.Name)
		}
	}
	if results != 6 { // main 3 (one from a bash command the user ran), fork 2, v1 1
		t.Errorf("got %d tool results, want 6", results)
	}
}

// TestBranches checks that both branches from a1000009 are archived, not only the active path.
func TestBranches(t *testing.T) {
	c, _ := readFile(t, filepath.Join(testRoot, mainKey))
	children := map[string][]string{}
	for _, m := range c.Messages() {
		if p := sourceOf(t, m.Options).ParentID; p != "" {
			children[p] = append(children[p], m.ID)
		}
	}
	if diff := cmp.Diff([]string{"a100000a", "a100000c"}, children["a1000009"]); diff != "" {
		t.Errorf("children of a1000009 (-want +got):\n%s", diff)
	}
	// The abandoned branch's reply and the active branch's leaf are both there.
	for _, id := range []string{"a100000b", "a1000019"} {
		if !slices.ContainsFunc(c.Messages(), func(m session.Message) bool { return m.ID == id }) {
			t.Errorf("message %s missing", id)
		}
	}
}

func TestLineage(t *testing.T) {
	parentName := filepath.Base(mainKey)
	forkBody := func(t *testing.T) string {
		b, err := os.ReadFile(filepath.Join(testRoot, forkKey))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	header := func(id, parent string) string {
		return `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/home/user/proj","parentSession":"` + parent + `"}` + "\n"
	}
	tests := []struct {
		name        string
		files       map[string]string // under sessions/
		read        string
		wantSession string
		wantMessage string
	}{
		{
			// The recorded path is from another machine; the parent is found under this root.
			name:        "parent-under-root",
			read:        "--home-user-proj--/f.jsonl",
			files:       map[string]string{"--home-user-proj--/f.jsonl": "", "--home-user-proj--/" + parentName: "main"},
			wantSession: mainID, wantMessage: "a1000009",
		},
		{
			// No parent file: the id comes from the recorded file name, the cut from the times.
			name:        "parent-missing",
			read:        "--home-user-proj--/f.jsonl",
			files:       map[string]string{"--home-user-proj--/f.jsonl": ""},
			wantSession: mainID, wantMessage: "a1000009",
		},
		{
			// The parent's header names the session; it wins over the file name.
			name:        "parent-header-wins",
			read:        "--x--/f.jsonl",
			files:       map[string]string{"--x--/f.jsonl": header("child", "/elsewhere/--y--/2026-01-01T00-00-00-000Z_name-id.jsonl") + `{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1767225601000}}` + "\n", "--y--/2026-01-01T00-00-00-000Z_name-id.jsonl": header("header-id", "") + `{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1767225601000}}` + "\n"},
			wantSession: "header-id", wantMessage: "e1",
		},
		{
			// A fork made before the first message copies nothing: no cut point.
			name:        "fork-before-first-message",
			read:        "--x--/f.jsonl",
			files:       map[string]string{"--x--/f.jsonl": header("child", "/gone/--x--/2026-01-01T00-00-00-000Z_p-id.jsonl") + `{"type":"message","id":"e9","parentId":null,"timestamp":"2026-03-02T10:00:05.000Z","message":{"role":"user","content":"hi","timestamp":1772445605000}}` + "\n"},
			wantSession: "p-id", wantMessage: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, body := range tt.files {
				switch body {
				case "":
					body = forkBody(t)
				case "main":
					b, err := os.ReadFile(filepath.Join(testRoot, mainKey))
					if err != nil {
						t.Fatal(err)
					}
					body = string(b)
				}
				write(t, filepath.Join(root, "sessions", filepath.FromSlash(name)), body)
			}
			c, _ := readFile(t, filepath.Join(root, "sessions", filepath.FromSlash(tt.read)))
			var s session.Session
			for _, v := range c.Sessions() {
				s = v
			}
			if s.ParentSessionID != tt.wantSession || s.ParentMessageID != tt.wantMessage {
				t.Errorf("got parent %q at %q, want %q at %q", s.ParentSessionID, s.ParentMessageID, tt.wantSession, tt.wantMessage)
			}
		})
	}

	t.Run("testdata", func(t *testing.T) {
		c, _ := readRoot(t, testRoot, nil)
		got := c.Sessions()[forkID]
		if got.ParentSessionID != mainID || got.ParentMessageID != "a1000009" {
			t.Errorf("fork: got parent %q at %q, want %s at a1000009", got.ParentSessionID, got.ParentMessageID, mainID)
		}
		for _, id := range []string{mainID, v1ID, v2ID} {
			if s := c.Sessions()[id]; s.ParentSessionID != "" || s.ParentMessageID != "" {
				t.Errorf("%s: got parent %q at %q, want none", id, s.ParentSessionID, s.ParentMessageID)
			}
		}
	})
}

func TestSession(t *testing.T) {
	c, _ := readRoot(t, testRoot, nil)
	got := c.Sessions()[mainID]
	want := session.Session{
		ID: mainID, SourceAgent: "pi-coding-agent", Project: "/home/user/proj",
		CreatedAt: time.Date(2026, 3, 2, 9, 15, 0, 0, time.UTC),
	}
	if diff := cmp.Diff(want, got, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Options" }, cmp.Ignore())); diff != "" {
		t.Errorf("session (-want +got):\n%s", diff)
	}
	if s := sourceOf(t, got.Options); s.File != filepath.Base(mainKey) || !bytes.HasPrefix(s.Record, []byte(`{"type":"session","version":3,`)) {
		t.Errorf("options.source %+v: want the header record and the file name", s)
	}
	if v1 := c.Sessions()[v1ID]; v1.Project != "/home/user/legacy" || !v1.CreatedAt.Equal(time.Date(2025, 11, 20, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("v1 session %+v: want the header's cwd and time", v1)
	}
}

func TestHeaderless(t *testing.T) {
	// pi would treat this file as empty; the archive keeps what it says.
	path := filepath.Join(t.TempDir(), "sessions", "--p--", "2026-01-02T03-04-05-006Z_abc.jsonl")
	write(t, path, `{"type":"message","id":"e1","parentId":null,"message":{"role":"user","content":"hi"}}`+"\n")
	c, _ := readFile(t, path)
	s := c.Sessions()["abc"]
	if s.Project != "--p--" || !s.CreatedAt.Equal(time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)) {
		t.Errorf("got %+v, want id, project key and time from the file's place", s)
	}
	if ms := c.Messages(); len(ms) != 1 || !ms[0].Timestamp.Equal(s.CreatedAt) {
		t.Errorf("got %+v, want one message at the session's start", ms)
	}
}

func TestLegacyV1(t *testing.T) {
	path := filepath.Join(testRoot, v1Key)
	lines := fileLines(t, path)
	c1, _ := readFile(t, path)
	c2, _ := readFile(t, path)
	var ids, ids2 []string
	for _, m := range c1.Messages() {
		ids = append(ids, m.ID)
	}
	for _, m := range c2.Messages() {
		ids2 = append(ids2, m.ID)
	}
	if diff := cmp.Diff(ids, ids2); diff != "" {
		t.Errorf("ids differ between reads (-first +second):\n%s", diff)
	}
	want := []string{
		"rec-" + adapters.Digest([]byte(lines[1])), "rec-" + adapters.Digest([]byte(lines[2])), "rec-" + adapters.Digest([]byte(lines[3])), "rec-" + adapters.Digest([]byte(lines[4])),
		"rec-" + adapters.Digest([]byte(lines[5])), "rec-" + adapters.Digest([]byte(lines[5])) + "-2", // the repeated line
		"rec-" + adapters.Digest([]byte(lines[7])), "rec-" + adapters.Digest([]byte(lines[8])), "rec-" + adapters.Digest([]byte(lines[9])),
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	// The last two records carry no time: they take the compaction's.
	ms := c1.Messages()
	compaction := time.Date(2025, 11, 20, 8, 0, 20, 0, time.UTC)
	for _, m := range ms[7:] {
		if !m.Timestamp.Equal(compaction) {
			t.Errorf("%s: time %v, want the previous record's %v", m.ID, m.Timestamp, compaction)
		}
	}
	if parts := c1.PartsOf(v1ID, ids[2]); len(parts) != 1 || parts[0].CallID != "toolu_01Ls" || string(parts[0].Result) != `[{"type":"text","text":"main.go\nutil.go\n"}]` {
		t.Errorf("tool result %+v", parts)
	}
}

func TestSearchText(t *testing.T) {
	c, _ := readRoot(t, testRoot, nil)
	byKey := map[string]session.Message{}
	for _, m := range c.Messages() {
		byKey[m.SessionID+"/"+m.ID] = m
	}
	tests := []struct{ key, want string }{
		{mainID + "/a1000004", "Why does main.go fail to build?"},
		{mainID + "/a1000005", "Let me look at main.go."}, // reasoning and the call are not searched
		{mainID + "/a100000d", "Explain the error with this screenshot instead; don't edit anything.\nimage/png"},
		{mainID + "/a1000006", ""}, // tool
		{mainID + "/a100000f", ""}, // a command the user ran: no text
		{mainID + "/a1000011", ""}, // injected extension text
		{mainID + "/a1000012", ""}, // compaction
		{mainID + "/a1000003", ""}, // system prompt
		{v2ID + "/d4000002", ""},   // hookMessage
		{v2ID + "/d4000001", "Run the tests."},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.key[len(tt.key)-8:], "/", "-"), func(t *testing.T) {
			m, ok := byKey[tt.key]
			if !ok {
				t.Fatalf("no message %s", tt.key)
			}
			if got := session.SearchText(&m, c.PartsOf(m.SessionID, m.ID)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestUnknownKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions", "--p--", "2026-01-02T03-04-05-006Z_s.jsonl")
	write(t, path, `{"type":"session","version":3,"id":"s","timestamp":"2026-01-02T03:04:05.006Z","cwd":"/p","mood":"calm"}
{"type":"model_change","id":"e1","parentId":null,"timestamp":"2026-01-02T03:04:06.000Z","provider":"x","modelId":"y","fast":true}
{"type":"message","id":"e2","parentId":"e1","timestamp":"2026-01-02T03:04:07.000Z","message":{"role":"assistant","content":[{"type":"text","text":"a","cite":1},{"type":"audio","data":"AA=="}],"stopReason":"stop","latency":3,"timestamp":1767323047000}}
{"type":"message","id":"e3","parentId":"e2","timestamp":"2026-01-02T03:04:08.000Z","message":{"role":"robot","content":"beep"}}
{"type":"model_change","id":"e4","parentId":"e3","timestamp":"2026-01-02T03:04:09.000Z","provider":"x","modelId":"z","fast":false}
`)
	c, _ := readFile(t, path)
	var got []string
	for _, d := range c.Drift {
		got = append(got, d.What)
	}
	want := []string{
		`key "mood" in the session header`,
		`key "fast" in model_change entries`, // reported once per read
		`key "latency" in assistant messages`,
		`key "cite" in text blocks`,
		`content block type "audio" in assistant messages`,
		`message role "robot"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("drift (-want +got):\n%s", diff)
	}
	// The unknown key stays with its part; the unknown role is a system message.
	if ps := c.PartsOf("s", "e2"); len(ps) != 1 || string(ps[0].Options["source"]) != `{"cite":1}` {
		t.Errorf("parts of e2: %+v", ps)
	}
	if ms := c.Messages(); ms[2].Role != session.RoleSystem {
		t.Errorf("e3 role %s, want system", ms[2].Role)
	}
}

func TestIncremental(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(testRoot)); err != nil {
		t.Fatal(err)
	}
	mainPath := filepath.Join(root, filepath.FromSlash(mainKey))
	first, cursors := readRoot(t, root, nil)
	firstKeys := messageKeys(first, mainID)

	// Two new entries and a half-written third.
	appendTo(t, mainPath, `{"type":"message","id":"a100001a","parentId":"a1000019","timestamp":"2026-03-02T09:20:00.000Z","message":{"role":"user","content":"One more: run the tests.","timestamp":1772443199998}}
{"type":"message","id":"a100001b","parentId":"a100001a","timestamp":"2026-03-02T09:20:03.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"toolu_03Test","name":"bash","arguments":{"command":"go test ./..."}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1772443200003}}
{"type":"message","id":"a100001c","parentId":"a100001b","timestamp":"2026-03-02T09:20:0`)
	second, cursors := readRoot(t, root, cursors)
	if got := second.Counts(); got != (adaptertest.Counts{Sessions: 1, Messages: 2, Parts: 2}) {
		t.Fatalf("after append: got %v, want the re-emitted session and the two new messages", got)
	}
	if diff := cmp.Diff(first.Sessions()[mainID], *second.Events[0].Session); diff != "" {
		t.Errorf("re-emitted session differs (-first +again):\n%s", diff)
	}
	if got := messageKeys(second, mainID); !slices.Equal(got, []string{"a100001a", "a100001b"}) {
		t.Errorf("new messages %v, want a100001a a100001b", got)
	}

	// Nothing new: nothing is read (same stamp), and a forced read emits nothing.
	third, _ := readRoot(t, root, cursors)
	if len(third.Events) != 0 {
		t.Errorf("unchanged root: got %d events, want none", len(third.Events))
	}
	var forced adaptertest.Collector
	src := source(t, mainPath)
	if _, err := New().Read(context.Background(), adapters.Env{}, src, cursors[mainKey], &forced); err != nil || len(forced.Events) != 0 {
		t.Errorf("forced re-read: %v, %d events; want none", err, len(forced.Events))
	}

	// The half-written line is finished.
	appendTo(t, mainPath, `5.000Z","message":{"role":"toolResult","toolCallId":"toolu_03Test","toolName":"bash","content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":1772443205000}}`+"\n")
	fourth, cursors := readRoot(t, root, cursors)
	if got := messageKeys(fourth, mainID); !slices.Equal(got, []string{"a100001c"}) || len(fourth.Bad) != 0 {
		t.Errorf("after the line was finished: %v (malformed %v), want a100001c only", got, fourth.Bad)
	}

	// A legacy file with id-less records: a repeat appended later still gets its suffix.
	v1Path := filepath.Join(root, filepath.FromSlash(v1Key))
	appendTo(t, v1Path, fileLines(t, v1Path)[5]+"\n")
	fifth, cursors := readRoot(t, root, cursors)
	lines := fileLines(t, v1Path)
	if got := messageKeys(fifth, v1ID); !slices.Equal(got, []string{"rec-" + adapters.Digest([]byte(lines[5])) + "-3"}) {
		t.Errorf("appended repeat: got %v, want its -3 id", got)
	}

	// The file is rewritten (re-serialised, as pi's migration or a copy would): read from the
	// start, it yields the same keys as before.
	all := append(append(firstKeys, "a100001a", "a100001b"), "a100001c")
	rewrite(t, mainPath)
	sixth, _ := readRoot(t, root, cursors)
	if diff := cmp.Diff(all, messageKeys(sixth, mainID)); diff != "" {
		t.Errorf("rewritten file: keys (-before +after):\n%s", diff)
	}
}

func messageKeys(c *adaptertest.Collector, sessionID string) []string {
	var out []string
	for _, m := range c.Messages() {
		if m.SessionID == sessionID {
			out = append(out, m.ID)
		}
	}
	return out
}

func appendTo(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	// Make sure the stamp changes even on a coarse clock.
	later := time.Now().Add(time.Duration(len(s)) * time.Millisecond)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

// rewrite re-serialises every line of path with sorted keys.
func rewrite(t testing.TB, path string) {
	t.Helper()
	var b strings.Builder
	for _, line := range fileLines(t, path) {
		var v any
		if json.Unmarshal([]byte(line), &v) == nil {
			out, _ := json.Marshal(v)
			line = string(out)
		}
		b.WriteString(line + "\n")
	}
	write(t, path, b.String())
}

func fileLines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// TestGolden compares each fixture's event stream with testdata/golden; -update rewrites them.
func TestGolden(t *testing.T) {
	for _, key := range []string{mainKey, forkKey, v2Key, v1Key} {
		name := strings.TrimSuffix(filepath.Base(key), ".jsonl")
		t.Run(name[len(name)-12:], func(t *testing.T) {
			c, _ := readFile(t, filepath.Join(testRoot, key))
			var b bytes.Buffer
			for _, e := range c.Events {
				line, err := json.Marshal(e)
				if err != nil {
					t.Fatal(err)
				}
				b.Write(line)
				b.WriteByte('\n')
			}
			golden := filepath.Join("testdata", "golden", name+".events.jsonl")
			if *update {
				write(t, golden, b.String())
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if diff := cmp.Diff(string(want), b.String()); diff != "" {
				t.Errorf("events (-golden +got):\n%s", diff)
			}
		})
	}
}

// TestCorpus reads every pi file among the shared real-world fixtures (and this package's own)
// and checks that every line is accounted for: kept verbatim as exactly one record, in order,
// or reported malformed.
func TestCorpus(t *testing.T) {
	shared := filepath.Join("..", "..", "..", "shared", "fixtures", "pi")
	var files []string
	for _, dir := range []string{shared, testRoot} {
		if _, err := os.Stat(dir); err != nil {
			t.Logf("skipping %s: %v", dir, err)
			continue
		}
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) == 0 {
		t.Skip("no pi fixtures found")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			c, _ := readFile(t, path)
			bad := map[int]bool{}
			for _, b := range c.Bad {
				bad[b.At.Line] = true
			}
			var want []string
			for i, line := range strings.Split(mustRead(t, path), "\n") {
				if strings.TrimSpace(strings.TrimRight(line, "\r")) != "" && !bad[i+1] {
					want = append(want, strings.TrimRight(line, "\r"))
				}
			}
			var got []string
			for _, e := range c.Events {
				var o session.Options
				switch {
				case e.Session != nil:
					o = e.Session.Options
				case e.Message != nil:
					o = e.Message.Options
				default:
					continue
				}
				if rec := sourceOf(t, o).Record; rec != nil {
					got = append(got, string(rec))
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d records kept, %d lines (%d malformed): want one record per line", len(got), len(want), len(c.Bad))
			} else if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("records (-lines +kept):\n%s", diff)
			}
			t.Logf("%s: %v; drift %v", path, c.Counts(), c.Drift)
		})
	}
}

func mustRead(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRealSession checks the mapping of the real pi 0.87.1 file (skipped without the shared
// fixtures).
func TestRealSession(t *testing.T) {
	root := "/work/shared/fixtures/pi/lazyagents/0.87.1/home/.pi/agent"
	if _, err := os.Stat(root); err != nil {
		t.Skipf("shared fixtures not present: %v", err)
	}
	c, _ := readRoot(t, root, nil)
	const id = "01a0f21b-0595-72a7-84dc-df0fc0d0de3f"
	s := c.Sessions()[id]
	if s.Project != "/work/proj" || s.ParentSessionID != "" {
		t.Errorf("session %+v", s)
	}
	var roles []string
	for _, m := range c.Messages() {
		roles = append(roles, string(m.Role))
	}
	want := []string{"system", "system", "system", "system", "user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant"}
	if diff := cmp.Diff(want, roles); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
	call := c.PartsOf(id, "c966efa0")
	result := c.PartsOf(id, "7181f0f8")
	if len(call) != 1 || len(result) != 1 || call[0].CallID != "call_1" || result[0].CallID != "call_1" || string(result[0].Result) != `[{"text":"fixture\n","type":"text"}]` {
		t.Errorf("call %+v, result %+v", call, result)
	}
	if ms := c.Messages(); !strings.HasPrefix(ms[3].Content, "<cwd>\n/work/proj\n</cwd>") {
		t.Errorf("system prompt content %q", trunc(ms[3].Content))
	}
	if len(c.Drift) != 0 || len(c.Bad) != 0 {
		t.Errorf("drift %v, malformed %v; want none", c.Drift, c.Bad)
	}
}
