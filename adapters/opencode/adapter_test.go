package opencode

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store/sqlite"
)

// T is the base time of testdata/opencode.sql, L that of testdata/storage.
const (
	T = 1790000000000
	L = 1760000000000
)

// newRoot is an OpenCode data directory in a temporary folder holding testdata/opencode.sql as
// opencode.db and, when tree is set, testdata/storage.
func newRoot(t *testing.T, tree bool) (root string, env adapters.Env) {
	t.Helper()
	root = t.TempDir()
	script, err := os.ReadFile("testdata/opencode.sql")
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlite.CreateFromScript(filepath.Join(root, "opencode.db"), string(script)); err != nil {
		t.Fatal(err)
	}
	if tree {
		if err := os.CopyFS(filepath.Join(root, "storage"), os.DirFS("testdata/storage")); err != nil {
			t.Fatal(err)
		}
	}
	return root, testEnv(root)
}

func testEnv(home string) adapters.Env {
	env := adaptertest.FakeEnv("linux", home, nil)
	env.OpenSQLite = sqlite.OpenAgentDB
	return env
}

// openWriter opens path for writing the way OpenCode does (WAL), never waiting on a lock: a
// write that a reader blocked would fail at once.
func openWriter(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=0&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec("PRAGMA journal_mode=WAL"); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestCapabilities(t *testing.T) {
	a := New()
	want := adapters.Capabilities{Restore: true, ToolCalls: true, Subagents: true, Incremental: true}
	if a.Name() != "opencode" || a.Capabilities() != want {
		t.Errorf("got %q %+v, want \"opencode\" %+v", a.Name(), a.Capabilities(), want)
	}
}

func TestRoots(t *testing.T) {
	tests := []struct {
		name string
		goos string
		home string
		vars map[string]string
		want []string
	}{
		{"linux", "linux", "/home/u", nil, []string{"/home/u/.local/share/opencode"}},
		{"darwin-same-as-linux", "darwin", "/Users/u", nil, []string{"/Users/u/.local/share/opencode"}},
		{"windows-under-home", "windows", "/c/Users/u", nil, []string{"/c/Users/u/.local/share/opencode"}},
		{"xdg", "linux", "/home/u", map[string]string{"XDG_DATA_HOME": "/data"}, []string{"/data/opencode"}},
		{"xdg-on-darwin", "darwin", "/Users/u", map[string]string{"XDG_DATA_HOME": "/x"}, []string{"/x/opencode"}},
		{"no-home", "linux", "", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := New().Roots(adaptertest.FakeEnv(tt.goos, tt.home, tt.vars))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("roots (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScanMissingRoot(t *testing.T) {
	_, err := New().Scan(context.Background(), testEnv(t.TempDir()), filepath.Join(t.TempDir(), "absent"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got %v, want an error wrapping fs.ErrNotExist", err)
	}
}

func TestScanWithoutOpener(t *testing.T) {
	root, env := newRoot(t, false)
	env.OpenSQLite = nil
	if _, err := New().Scan(context.Background(), env, root); err == nil {
		t.Error("scan of a database without an SQLite opener succeeded")
	}
}

func TestScanUnreadableDatabase(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "opencode.db"), []byte("not a database, just text long enough to be a header ...................................................."), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := New().Scan(context.Background(), testEnv(root), root); err == nil {
		t.Error("scan of a corrupt database succeeded")
	}
}

func TestScan(t *testing.T) {
	root, env := newRoot(t, true)
	// A channel database and files that are not databases.
	script, _ := os.ReadFile("testdata/opencode.sql")
	if err := sqlite.CreateFromScript(filepath.Join(root, "opencode-beta.db"), string(script)); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"opencode.db-wal.bak", "other.db", "opencode.json"} {
		os.WriteFile(filepath.Join(root, n), nil, 0o644)
	}
	srcs, err := New().Scan(context.Background(), env, root)
	if err != nil {
		t.Fatal(err)
	}
	type view struct{ Key, Path, Hint string }
	var got []view
	for _, s := range srcs {
		got = append(got, view{s.Key, strings.TrimPrefix(s.Path, root+"/"), s.Hint})
		if s.Stamp == "" || s.Size <= 0 || s.ModTime.IsZero() {
			t.Errorf("%s: stamp %q, size %d, mod time %v: want all set", s.Key, s.Stamp, s.Size, s.ModTime)
		}
	}
	var want []view
	for _, db := range []string{"opencode.db", "opencode-beta.db"} {
		for _, id := range []string{"ses_child", "ses_global", "ses_parent", "ses_shared"} {
			want = append(want, view{db + "#" + id, db, id})
		}
	}
	want = append(want,
		view{"storage#ses_legacy", "storage/session/a1b2c3d4/ses_legacy.json", "ses_legacy"},
		view{"storage#ses_legacy_child", "storage/session/a1b2c3d4/ses_legacy_child.json", "ses_legacy_child"},
		view{"storage#ses_shared", "storage/session/global/ses_shared.json", "superseded:opencode.db#ses_shared"},
	)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	for _, s := range srcs {
		db, ok := Superseded(s)
		if wantOK := s.Key == "storage#ses_shared"; ok != wantOK || (ok && db != "opencode.db") {
			t.Errorf("Superseded(%s) = %q, %v; want superseded by opencode.db only for storage#ses_shared", s.Key, db, ok)
		}
	}
}

// read reads the test root whole.
func read(t *testing.T) (*adaptertest.Collector, string) {
	t.Helper()
	root, env := newRoot(t, true)
	var c adaptertest.Collector
	adaptertest.ReadRoot(t, New(), env, root, nil, &c)
	return &c, root
}

func TestReadCounts(t *testing.T) {
	c, _ := read(t)
	want := adaptertest.Counts{Sessions: 6, Messages: 26, Parts: 29, Malformed: 4}
	if got := c.Counts(); got != want {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestReadSessions(t *testing.T) {
	c, _ := read(t)
	type view struct {
		Parent, Agent, Project string
		Created                int64
		From                   string // options.source.table or .file
	}
	got := map[string]view{}
	for id, s := range c.Sessions() {
		var src struct{ Table, File string }
		json.Unmarshal(s.Options["source"], &src)
		got[id] = view{s.ParentSessionID, s.SourceAgent, s.Project, s.CreatedAt.UnixMilli(), src.Table + src.File}
	}
	want := map[string]view{
		"ses_parent":       {"", "opencode", "/work/app", T, "session"},
		"ses_child":        {"ses_parent", "opencode/subagent", "/work/app", T + 4000, "session"},
		"ses_shared":       {"", "opencode", "/work/shared", T - 1000000, "session"}, // the database's copy
		"ses_global":       {"", "opencode", "global", T - 2000000, "session"},       // no directory; the global project's worktree is "/"
		"ses_legacy":       {"", "opencode", "/work/app/sub", L, "session/a1b2c3d4/ses_legacy.json"},
		"ses_legacy_child": {"ses_legacy", "opencode/subagent", "/work/app/sub", L + 2150, "session/a1b2c3d4/ses_legacy_child.json"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
}

func TestReadMessageOrder(t *testing.T) {
	c, _ := read(t)
	bySession := map[string][]string{}
	var parent []session.Message
	for _, m := range c.Messages() {
		bySession[m.SessionID] = append(bySession[m.SessionID], m.ID+"/"+string(m.Role))
		if m.SessionID == "ses_parent" {
			parent = append(parent, m)
		}
	}
	want := map[string][]string{
		"ses_parent": {
			"msg_p01/user", "prt_p01d/system", // an agent mention
			"msg_p02/assistant", "prt_p02a/system", "prt_p02g/system", "prt_p02h/system", // step-start, step-finish, patch
			"msg_p03/assistant", "prt_p03a/system", "prt_p03f/system", "prt_p03g/system", // step-start, retry, unknown type
			"msg_p04/user", "prt_p04a/system", // compaction
			"msg_p05/assistant", "prt_p05b/system",
			// msg_p06 is malformed
			"msg_p07/user", "prt_p07b/system", // subtask
		},
		"ses_child":        {"msg_c01/user", "msg_c02/assistant", "session_message:smsg_c1/system"},
		"ses_shared":       {"msg_s01/user", "msg_s02/assistant"},
		"ses_global":       {"msg_g01/user"},
		"ses_legacy":       {"msg_l01/user", "msg_l02/assistant", "prt_l02a/system"},
		"ses_legacy_child": {"msg_lc01/user"},
	}
	if diff := cmp.Diff(want, bySession); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if !slices.IsSortedFunc(parent, func(a, b session.Message) int {
		if a.Before(&b) {
			return -1
		}
		return 1
	}) {
		t.Error("ses_parent's messages are not emitted in (timestamp, id) order")
	}
	for _, m := range c.Messages() {
		if m.Role == session.RoleSystem && len(c.PartsOf(m.SessionID, m.ID)) != 0 {
			t.Errorf("system message %s/%s has parts", m.SessionID, m.ID)
		}
		if m.Options["source"] == nil {
			t.Errorf("message %s/%s has no options.source", m.SessionID, m.ID)
		}
	}
}

type partView struct {
	ID      string
	Ord     int
	Type    session.PartType
	Prov    session.Provenance
	Text    string
	Call    string
	Name    string
	Failure bool
	Result  string
}

func viewParts(ps []session.Part) []partView {
	var out []partView
	for _, p := range ps {
		v := partView{ID: p.ID, Ord: p.Ordinal, Type: p.Type, Prov: p.Provenance, Text: p.Text, Call: p.CallID, Name: p.Name, Failure: p.IsFailure}
		if p.Type == session.PartFile {
			v.Text = p.FileName + " " + p.MediaType + " " + string(p.Data.Kind) + " " + string(p.Data.Bytes) + p.Data.Value
		}
		if p.Type == session.PartToolCall {
			v.Result = string(p.Params)
		}
		if p.Result != nil {
			json.Unmarshal(p.Result, &v.Result)
		}
		out = append(out, v)
	}
	return out
}

func TestReadParts(t *testing.T) {
	c, _ := read(t)
	const conv, inj = session.Conversational, session.Injected
	tests := []struct {
		session, message string
		want             []partView
	}{
		{"ses_parent", "msg_p01", []partView{
			{ID: "prt_p01a", Ord: 0, Type: "text", Prov: conv, Text: "Add a /healthz endpoint to the router"},
			{ID: "prt_p01b", Ord: 1, Type: "file", Prov: conv, Text: "notes.txt text/plain bytes keep it small\n"},
			{ID: "prt_p01c", Ord: 2, Type: "text", Prov: inj, Text: `Called the Read tool with the following input: {"filePath":"/work/app/notes.txt"}`},
		}},
		{"ses_parent", "msg_p02", []partView{
			{ID: "prt_p02b", Ord: 0, Type: "reasoning", Prov: conv, Text: "The router lives in router.go; read it first."},
			{ID: "prt_p02c", Ord: 1, Type: "text", Prov: conv, Text: "I'll read the router first."},
			{ID: "prt_p02d:0", Ord: 2, Type: "tool_call", Prov: conv, Call: "toolu_01", Name: "read", Result: `{"filePath":"/work/app/router.go"}`},
			{ID: "prt_p02d:1", Ord: 3, Type: "tool_result", Prov: conv, Call: "toolu_01", Name: "read", Result: "<file>\npackage app\n</file>"},
			{ID: "prt_p02e:0", Ord: 4, Type: "tool_call", Prov: conv, Call: "toolu_02", Name: "bash", Result: `{"command":"go test ./..."}`},
			{ID: "prt_p02e:1", Ord: 5, Type: "tool_result", Prov: conv, Call: "toolu_02", Name: "bash", Failure: true, Result: "exit status 1"},
			{ID: "prt_p02f:0", Ord: 6, Type: "tool_call", Prov: conv, Call: "toolu_03", Name: "task", Result: `{"description":"Find the router","prompt":"Find where routes are registered","subagent_type":"explore"}`},
			{ID: "prt_p02f:1", Ord: 7, Type: "tool_result", Prov: conv, Call: "toolu_03", Name: "task", Result: "Routes are registered in router.go."},
		}},
		{"ses_parent", "msg_p03", []partView{ // running and pending tools: calls only, their results' ordinals kept free
			{ID: "prt_p03b", Ord: 0, Type: "text", Prov: conv, Text: "Added GET /healthz."},
			{ID: "prt_p03c:0", Ord: 1, Type: "tool_call", Prov: conv, Call: "toolu_04", Name: "edit", Result: `{"filePath":"/work/app/router.go"}`},
			{ID: "prt_p03d:0", Ord: 3, Type: "tool_call", Prov: conv, Call: "toolu_05", Name: "glob", Result: `{}`},
			{ID: "prt_p03e", Ord: 5, Type: "text", Prov: conv, Text: "Still editing."},
		}},
		{"ses_parent", "msg_p04", nil}, // only a compaction part
		{"ses_parent", "msg_p05", []partView{ // the compaction summary
			{ID: "prt_p05a", Ord: 0, Type: "text", Prov: inj, Text: "Summary: we added GET /healthz; go test still fails."},
		}},
		{"ses_parent", "msg_p07", []partView{
			{ID: "prt_p07a", Ord: 0, Type: "text", Prov: conv, Text: "Review the change"},
		}},
		{"ses_child", "msg_c02", []partView{
			{ID: "prt_c02a:0", Ord: 0, Type: "tool_call", Prov: conv, Call: "toolu_11", Name: "grep", Result: `{"pattern":"HandleFunc"}`},
			{ID: "prt_c02a:1", Ord: 1, Type: "tool_result", Prov: conv, Call: "toolu_11", Name: "grep", Result: "router.go:12"},
			{ID: "prt_c02b", Ord: 2, Type: "text", Prov: conv, Text: "Routes are registered in router.go."},
		}},
		{"ses_shared", "msg_s01", []partView{ // not the tree's stale copy
			{ID: "prt_s01a", Ord: 0, Type: "text", Prov: conv, Text: "What does this repo do?"},
		}},
		{"ses_legacy", "msg_l02", []partView{ // prt_l02a is a step-start, prt_l02d is malformed
			{ID: "prt_l02b:0", Ord: 0, Type: "tool_call", Prov: conv, Call: "call_1", Name: "glob", Result: `{"pattern":"**/*.go"}`},
			{ID: "prt_l02b:1", Ord: 1, Type: "tool_result", Prov: conv, Call: "call_1", Name: "glob", Result: "a.go\nb.go\nc.go"},
			{ID: "prt_l02c", Ord: 2, Type: "text", Prov: conv, Text: "There are 3 Go files."},
		}},
		{"ses_legacy_child", "msg_lc01", []partView{ // from the flat part/ layout
			{ID: "prt_lc01a", Ord: 0, Type: "text", Prov: conv, Text: "Count the Go files"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.session+"/"+tt.message, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, viewParts(c.PartsOf(tt.session, tt.message))); diff != "" {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadToolPairs(t *testing.T) {
	c, _ := read(t)
	calls, results := map[string]int{}, map[string]int{}
	for _, p := range c.Parts() {
		switch p.Type {
		case session.PartToolCall:
			calls[p.SessionID+"/"+p.CallID]++
		case session.PartToolResult:
			results[p.SessionID+"/"+p.CallID]++
			if calls[p.SessionID+"/"+p.CallID] == 0 {
				t.Errorf("result %s/%s comes before its call", p.MessageID, p.ID)
			}
		}
	}
	var open []string
	for k, n := range calls {
		if n != 1 {
			t.Errorf("call %s emitted %d times", k, n)
		}
		if results[k] == 0 {
			open = append(open, k)
		}
	}
	sort.Strings(open)
	if diff := cmp.Diff([]string{"ses_parent/toolu_04", "ses_parent/toolu_05"}, open); diff != "" {
		t.Errorf("calls without a result (-want +got):\n%s", diff)
	}
}

func TestReadSearchText(t *testing.T) {
	c, _ := read(t)
	tests := []struct {
		session, message, want string
	}{
		{"ses_parent", "msg_p01", "Add a /healthz endpoint to the router\nnotes.txt text/plain"}, // not the synthetic text
		{"ses_parent", "msg_p02", "I'll read the router first."},                                 // not reasoning or tools
		{"ses_parent", "msg_p05", ""},                                                            // the compaction summary
		{"ses_parent", "prt_p02g", ""},                                                           // a step-finish
		{"ses_legacy", "msg_l02", "There are 3 Go files."},
	}
	msgs := map[string]session.Message{}
	for _, m := range c.Messages() {
		msgs[m.SessionID+"/"+m.ID] = m
	}
	for _, tt := range tests {
		t.Run(tt.message, func(t *testing.T) {
			m, ok := msgs[tt.session+"/"+tt.message]
			if !ok {
				t.Fatal("message not emitted")
			}
			if got := session.SearchText(&m, c.PartsOf(tt.session, tt.message)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReadProblems(t *testing.T) {
	c, root := read(t)
	var bad, drift []string
	for _, p := range c.Bad {
		bad = append(bad, strings.TrimPrefix(p.At.Path, root+"/"))
	}
	for _, p := range c.Drift {
		drift = append(drift, strings.TrimPrefix(p.At.Path, root+"/")+": "+p.What)
	}
	sort.Strings(bad)
	sort.Strings(drift)
	wantBad := []string{
		"opencode.db#msg_p06",    // data is not JSON; its part goes with it
		"opencode.db#prt_orphan", // its message is not in the session
		"opencode.db#prt_p07c",   // data is not an object
		"storage/part/msg_l02/prt_l02d.json",
	}
	wantDrift := []string{
		`opencode.db#prt_p03g: part type "frobnicate"`,
		`opencode.db#prt_p07a: text part key "mood"`,
		`opencode.db#smsg_c1: session_message rows (kept raw, not mapped)`,
	}
	if diff := cmp.Diff(wantBad, bad); diff != "" {
		t.Errorf("malformed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantDrift, drift); diff != "" {
		t.Errorf("unknown (-want +got):\n%s", diff)
	}
}

// TestReadRawRecords checks that each row is kept verbatim, once, on the object it produced.
func TestReadRawRecords(t *testing.T) {
	c, root := read(t)
	db, err := sqlite.OpenAgentDB(filepath.Join(root, "opencode.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rowData := func(table, id string) string {
		var data string
		if err := db.QueryRow("SELECT data FROM "+table+" WHERE id = ?", id).Scan(&data); err != nil {
			t.Fatal(err)
		}
		return data
	}
	type src struct {
		Table, DB string
		Record    map[string]any
		Project   map[string]any
	}
	decode := func(o session.Options) src {
		var s src
		if err := json.Unmarshal(o["source"], &s); err != nil {
			t.Fatalf("options.source: %v", err)
		}
		return s
	}
	records := map[string]int{} // row id → objects holding it
	for _, e := range c.Events {
		var o session.Options
		switch {
		case e.Message != nil:
			o = e.Message.Options
		case e.Part != nil:
			o = e.Part.Options
		}
		if o["source"] == nil {
			continue
		}
		if s := decode(o); s.Record != nil {
			if id, _ := s.Record["id"].(string); id != "" {
				records[id]++
			}
		}
	}
	for _, id := range []string{"msg_p02", "prt_p02d", "prt_p02a", "prt_p03c"} {
		if records[id] != 1 {
			t.Errorf("row %s is held by %d objects, want 1", id, records[id])
		}
	}
	for _, p := range c.Parts() {
		switch p.ID {
		case "prt_p02d:0":
			s := decode(p.Options)
			if s.Table != "part" || s.Record["data"] != rowData("part", "prt_p02d") || s.Record["message_id"] != "msg_p02" {
				t.Errorf("tool call's options.source = %+v, want the part row verbatim", s)
			}
		case "prt_p02d:1":
			if p.Options != nil {
				t.Errorf("tool result has options %s; the row belongs to the call", p.Options)
			}
		case "prt_p02b":
			if got := string(p.Options["anthropic"]); got != `{"signature":"sig-0001"}` {
				t.Errorf("reasoning options.anthropic = %s, want the provider metadata", got)
			}
		}
	}
	for _, m := range c.Messages() {
		if m.SessionID == "ses_parent" && m.ID == "msg_p02" {
			if s := decode(m.Options); s.Record["data"] != rowData("message", "msg_p02") || s.Record["time_created"] != float64(T+2000) {
				t.Errorf("message options.source.record = %v, want the message row verbatim", s.Record)
			}
		}
	}
	s := decode(c.Sessions()["ses_parent"].Options)
	if s.DB != "opencode.db" || s.Record["title"] != "Add a health check" || s.Record["parent_id"] != nil || s.Project["worktree"] != "/work/app" {
		t.Errorf("session options.source = %+v, want the session and project rows", s)
	}
}

// recorder notes which sources an adapter reads.
type recorder struct {
	adapters.Adapter
	read []string
}

func (r *recorder) Read(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	r.read = append(r.read, src.Key)
	return r.Adapter.Read(ctx, env, src, cur, out)
}

func exec(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func TestIncremental(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, root string, w *sql.DB)
		read   []string // the sources read again
		check  func(t *testing.T, c *adaptertest.Collector)
	}{
		{
			name:   "nothing",
			change: func(*testing.T, string, *sql.DB) {},
		},
		{
			name: "new-message",
			change: func(t *testing.T, _ string, w *sql.DB) {
				exec(t, w, // as OpenCode does: the message, its part, then the session's time_updated
					`INSERT INTO message VALUES('msg_p08','ses_parent',1790000050000,1790000050000,'{"role":"user","time":{"created":1790000050000}}')`,
					`INSERT INTO part VALUES('prt_p08a','msg_p08','ses_parent',1790000050010,1790000050010,'{"type":"text","text":"Ship it"}')`,
					`UPDATE session SET time_updated = 1790000050020 WHERE id = 'ses_parent'`)
			},
			read: []string{"opencode.db#ses_parent"},
			check: func(t *testing.T, c *adaptertest.Collector) {
				got := viewParts(c.PartsOf("ses_parent", "msg_p08"))
				want := []partView{{ID: "prt_p08a", Type: "text", Prov: session.Conversational, Text: "Ship it"}}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("new message's parts (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "tool-finished",
			change: func(t *testing.T, _ string, w *sql.DB) { // an update in place: no row added, no session touch
				exec(t, w, `UPDATE part SET time_updated = 1790000060000, data = '{"type":"tool","callID":"toolu_04","tool":"edit","state":{"status":"completed","input":{"filePath":"/work/app/router.go"},"output":"Edit applied.","title":"router.go","metadata":{},"time":{"start":1790000010031,"end":1790000060000}}}' WHERE id = 'prt_p03c'`)
			},
			read: []string{"opencode.db#ses_parent"},
			check: func(t *testing.T, c *adaptertest.Collector) {
				got := viewParts(c.PartsOf("ses_parent", "msg_p03"))[1:4]
				want := []partView{
					{ID: "prt_p03c:0", Ord: 1, Type: "tool_call", Prov: session.Conversational, Call: "toolu_04", Name: "edit", Result: `{"filePath":"/work/app/router.go"}`},
					{ID: "prt_p03c:1", Ord: 2, Type: "tool_result", Prov: session.Conversational, Call: "toolu_04", Name: "edit", Result: "Edit applied."},
					{ID: "prt_p03d:0", Ord: 3, Type: "tool_call", Prov: session.Conversational, Call: "toolu_05", Name: "glob", Result: `{}`},
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("parts (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "edit-within-the-latest-millisecond",
			change: func(t *testing.T, _ string, w *sql.DB) { // neither the count nor the latest time changes
				var latest int64
				if err := w.QueryRow(`SELECT max(time_updated) FROM part WHERE session_id = 'ses_parent'`).Scan(&latest); err != nil {
					t.Fatal(err)
				}
				if _, err := w.Exec(`UPDATE part SET time_updated = ?, data = '{"type":"text","text":"I will read the router first."}' WHERE id = 'prt_p02c'`, latest); err != nil {
					t.Fatal(err)
				}
			},
			read: []string{"opencode.db#ses_parent"},
		},
		{
			name:   "part-deleted",
			change: func(t *testing.T, _ string, w *sql.DB) { exec(t, w, `DELETE FROM part WHERE id = 'prt_p02h'`) },
			read:   []string{"opencode.db#ses_parent"},
		},
		{
			name: "child-session-message",
			change: func(t *testing.T, _ string, w *sql.DB) {
				exec(t, w, `INSERT INTO message VALUES('msg_c03','ses_child',1790000004950,1790000004950,'{"role":"assistant","time":{"created":1790000004950}}')`)
			},
			read: []string{"opencode.db#ses_child"},
		},
		{
			name: "legacy-file-rewritten",
			change: func(t *testing.T, root string, _ *sql.DB) {
				p := filepath.Join(root, "storage", "part", "msg_l02", "prt_l02c.json")
				if err := os.WriteFile(p, []byte(`{"id":"prt_l02c","type":"text","text":"There are 4 Go files."}`), 0o644); err != nil {
					t.Fatal(err)
				}
				later := time.Now().Add(time.Minute)
				os.Chtimes(p, later, later)
			},
			read: []string{"storage#ses_legacy"},
			check: func(t *testing.T, c *adaptertest.Collector) {
				if got := c.PartsOf("ses_legacy", "msg_l02"); len(got) != 3 || got[2].Text != "There are 4 Go files." {
					t.Errorf("got parts %+v, want the rewritten text last", viewParts(got))
				}
			},
		},
		{
			name: "database-takes-over-legacy-session",
			change: func(t *testing.T, _ string, w *sql.DB) {
				exec(t, w, `INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES('ses_legacy_child','a1b2c3d4','x','/work/app/sub','Count files','1.18.33',1760000002150,1760000002190)`)
			},
			read: []string{"opencode.db#ses_legacy_child", "storage#ses_legacy_child"}, // the tree's copy, now superseded, reads as nothing
			check: func(t *testing.T, c *adaptertest.Collector) {
				if got := c.Counts(); got.Sessions != 1 || got.Messages != 0 {
					t.Errorf("got %v, want only the database's empty session", got)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, env := newRoot(t, true)
			a := &recorder{Adapter: New()}
			var first adaptertest.Collector
			cursors := adaptertest.ReadRoot(t, a, env, root, nil, &first)

			w := openWriter(t, filepath.Join(root, "opencode.db"))
			tt.change(t, root, w)

			a.read = nil
			var c adaptertest.Collector
			adaptertest.ReadRoot(t, a, env, root, cursors, &c)
			sort.Strings(a.read)
			if diff := cmp.Diff(tt.read, a.read); diff != "" {
				t.Errorf("sources read again (-want +got):\n%s", diff)
			}
			if tt.check != nil {
				tt.check(t, &c)
			}
		})
	}
}

// TestAgentKeepsWriting shows that reading never blocks OpenCode: its writer (WAL, as OpenCode
// runs it, here without any busy wait) writes while a write transaction is open across our
// reads, commits while we read, and can checkpoint the whole WAL after a read, which it could
// not if the reader were still holding the database.
func TestAgentKeepsWriting(t *testing.T) {
	root, env := newRoot(t, false)
	path := filepath.Join(root, "opencode.db")
	w := openWriter(t, path)
	a := New()
	ctx := context.Background()

	// A write transaction is open across a whole scan and read.
	tx, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO message VALUES('msg_p08','ses_parent',1790000050000,1790000050000,'{"role":"user","time":{"created":1790000050000}}')`); err != nil {
		t.Fatal(err)
	}
	var c adaptertest.Collector
	cursors := adaptertest.ReadRoot(t, a, env, root, nil, &c)
	if len(c.PartsOf("ses_parent", "msg_p08")) != 0 || slices.ContainsFunc(c.Messages(), func(m session.Message) bool { return m.ID == "msg_p08" }) {
		t.Error("read saw an uncommitted message")
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("writer could not commit after our reads: %v", err)
	}
	if _, err := w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	var busy, logged, moved int
	if err := w.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logged, &moved); err != nil || busy != 0 {
		t.Fatalf("checkpoint after reads: busy=%d err=%v; a reader still holds the database", busy, err)
	}

	// The writer commits a run of parts, as OpenCode streaming a reply would, while we scan and
	// read over and over.
	const writes = 300
	done := make(chan error, 1)
	go func() {
		for i := range writes {
			ms := int64(1790000060000 + i)
			if _, err := w.Exec(`INSERT INTO part VALUES(?, 'msg_p07', 'ses_parent', ?, ?, '{"type":"text","text":"more"}')`, fmt.Sprintf("prt_w%06d", i), ms, ms); err != nil {
				done <- err
				return
			}
			if _, err := w.Exec(`UPDATE session SET time_updated = ? WHERE id = 'ses_parent'`, ms); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	rounds := 0
	for writing := true; writing; rounds++ {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("a write failed while we read: %v", err)
			}
			writing = false
		default:
		}
		srcs, err := a.Scan(ctx, env, root)
		if err != nil {
			t.Fatal(err)
		}
		for _, src := range srcs {
			var c adaptertest.Collector
			cur, err := a.Read(ctx, env, src, cursors[src.Key], &c)
			if err != nil {
				t.Fatal(err)
			}
			cursors[src.Key] = cur
		}
	}
	t.Logf("the writer committed %d parts during %d rounds of scans and reads", writes, rounds)

	// Every write landed, and a read now sees them all.
	var n int
	if err := w.QueryRow(`SELECT count(*) FROM part WHERE id LIKE 'prt_w%'`).Scan(&n); err != nil || n != writes {
		t.Fatalf("the writer's parts: %d (%v), want %d", n, err, writes)
	}
	var last adaptertest.Collector
	adaptertest.ReadRoot(t, a, env, root, nil, &last)
	if got := len(last.PartsOf("ses_parent", "msg_p07")); got != writes+1 { // prt_p07a and the writer's; prt_p07c is malformed
		t.Errorf("read has %d parts of msg_p07, want %d", got, writes+1)
	}
}

func TestReadDeletedSession(t *testing.T) {
	root, env := newRoot(t, false)
	srcs, err := New().Scan(context.Background(), env, root)
	if err != nil {
		t.Fatal(err)
	}
	exec(t, openWriter(t, filepath.Join(root, "opencode.db")), `DELETE FROM session WHERE id = 'ses_global'`)
	for _, src := range srcs {
		if src.Hint != "ses_global" {
			continue
		}
		var c adaptertest.Collector
		cur, err := New().Read(context.Background(), env, src, adapters.Cursor{}, &c)
		if err != nil || cur.Stamp != src.Stamp || len(c.Events) != 0 {
			t.Errorf("read of a deleted session: cursor %+v, err %v, %d events; want the scan's stamp and nothing", cur, err, len(c.Events))
		}
	}
}

// A turn OpenCode is still writing is held back until it completes (or the session goes quiet),
// because the archive keeps the first version of each row and OpenCode rewrites it in place.
func TestInProgressTurnIsHeldBack(t *testing.T) {
	root, env := newRoot(t, false)
	w := openWriter(t, filepath.Join(root, "opencode.db"))
	const t0 = int64(1790000060000)
	exec(t, w,
		`INSERT INTO message VALUES('msg_live','ses_parent',1790000060000,1790000060000,'{"role":"assistant","time":{"created":1790000060000},"parentID":"msg_p01"}')`,
		`INSERT INTO part VALUES('prt_live','msg_live','ses_parent',1790000060001,1790000060001,'{"type":"text","text":"Half a sent"}')`,
		`UPDATE session SET time_updated = 1790000060001 WHERE id = 'ses_parent'`)
	defer func(f func() time.Time) { now = f }(now)
	now = func() time.Time { return time.UnixMilli(t0).Add(time.Minute) }

	has := func(c *adaptertest.Collector, id string) bool {
		for _, m := range c.Messages() {
			if m.ID == id {
				return true
			}
		}
		return false
	}
	var c adaptertest.Collector
	cursors := adaptertest.ReadRoot(t, New(), env, root, nil, &c)
	if has(&c, "msg_live") {
		t.Fatal("a turn still being written was captured")
	}
	if !has(&c, "msg_p01") {
		t.Fatal("the messages before the live turn were held back too")
	}
	// The turn completes: the next read captures it whole.
	exec(t, w,
		`UPDATE part SET data = '{"type":"text","text":"Half a sentence, now whole."}', time_updated = 1790000070000 WHERE id = 'prt_live'`,
		`UPDATE message SET data = '{"role":"assistant","time":{"created":1790000060000,"completed":1790000070000},"parentID":"msg_p01"}', time_updated = 1790000070000 WHERE id = 'msg_live'`,
		`UPDATE session SET time_updated = 1790000070000 WHERE id = 'ses_parent'`)
	var c2 adaptertest.Collector
	adaptertest.ReadRoot(t, New(), env, root, cursors, &c2)
	parts := c2.PartsOf("ses_parent", "msg_live")
	if len(parts) != 1 || parts[0].Text != "Half a sentence, now whole." {
		t.Fatalf("completed turn: parts %+v", parts)
	}
	// A turn left unfinished by an agent that died is captured once the session is quiet.
	exec(t, w,
		`INSERT INTO message VALUES('msg_dead','ses_parent',1790000080000,1790000080000,'{"role":"assistant","time":{"created":1790000080000}}')`,
		`UPDATE session SET time_updated = 1790000080000 WHERE id = 'ses_parent'`)
	now = func() time.Time { return time.UnixMilli(t0).Add(time.Hour) }
	var c3 adaptertest.Collector
	adaptertest.ReadRoot(t, New(), env, root, nil, &c3)
	if !has(&c3, "msg_dead") {
		t.Fatal("an abandoned turn was never captured")
	}
}

func TestRootStamp(t *testing.T) {
	defer func(f func() time.Time) { now = f }(now)
	now = func() time.Time { return time.Now().Add(time.Hour) } // every file long written
	ctx := context.Background()
	a := New()
	stamp := func(t *testing.T, root string) string {
		t.Helper()
		s, err := a.RootStamp(ctx, adapters.Env{}, root)
		if err != nil {
			t.Fatal(err)
		}
		if s == "" {
			t.Fatal("no root stamp")
		}
		return s
	}
	tests := []struct {
		name   string
		change func(t *testing.T, root string, w *sql.DB)
	}{
		{"new-message", func(t *testing.T, _ string, w *sql.DB) {
			exec(t, w, `INSERT INTO message VALUES('msg_p08','ses_parent',1790000050000,1790000050000,'{"role":"user","time":{"created":1790000050000}}')`)
		}},
		{"checkpointed", func(t *testing.T, _ string, w *sql.DB) {
			exec(t, w, `INSERT INTO message VALUES('msg_p08','ses_parent',1790000050000,1790000050000,'{"role":"user","time":{"created":1790000050000}}')`,
				`PRAGMA wal_checkpoint(TRUNCATE)`)
		}},
		{"legacy-file-rewritten", func(t *testing.T, root string, _ *sql.DB) {
			p := filepath.Join(root, "storage", "part", "msg_l02", "prt_l02c.json")
			if err := os.WriteFile(p, []byte(`{"id":"prt_l02c","type":"text","text":"There are 4 Go files."}`), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"legacy-file-added", func(t *testing.T, root string, _ *sql.DB) {
			if err := os.WriteFile(filepath.Join(root, "storage", "project", "p2.json"), []byte(`{}`), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"channel-database-added", func(t *testing.T, root string, _ *sql.DB) {
			if err := os.WriteFile(filepath.Join(root, "opencode-beta.db"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, env := newRoot(t, true)
			w := openWriter(t, filepath.Join(root, "opencode.db")) // OpenCode running, its log open
			exec(t, w, `UPDATE session SET title = 'Renamed' WHERE id = 'ses_global'`)
			before := stamp(t, root)
			var c adaptertest.Collector
			adaptertest.ReadRoot(t, a, env, root, nil, &c)
			if got := stamp(t, root); got != before {
				t.Fatalf("a scan and read changed the root stamp: %q, was %q", got, before)
			}
			tt.change(t, root, w)
			if got := stamp(t, root); got == before {
				t.Errorf("root stamp %q unchanged", got)
			}
		})
	}

	t.Run("read-after-opencode-quit", func(t *testing.T) { // reading leaves an empty log behind
		root, env := newRoot(t, false)
		w := openWriter(t, filepath.Join(root, "opencode.db"))
		exec(t, w, `UPDATE session SET title = 'Renamed' WHERE id = 'ses_global'`)
		w.Close()
		before := stamp(t, root)
		var c adaptertest.Collector
		adaptertest.ReadRoot(t, a, env, root, nil, &c)
		if got := stamp(t, root); got != before {
			t.Errorf("a scan and read changed the root stamp: %q, was %q", got, before)
		}
	})
	t.Run("just-written", func(t *testing.T) {
		root, _ := newRoot(t, false)
		now = time.Now
		if s, err := a.RootStamp(ctx, adapters.Env{}, root); s != "" || err != nil {
			t.Errorf("got %q, %v; want no stamp for a database written just now", s, err)
		}
	})
	t.Run("missing-root", func(t *testing.T) {
		if _, err := a.RootStamp(ctx, adapters.Env{}, filepath.Join(t.TempDir(), "none")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("got %v, want fs.ErrNotExist", err)
		}
	})
}
