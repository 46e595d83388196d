package resume_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/resume"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestMain(m *testing.M) {
	// Codex names rollouts in local time; golden files must not depend on the machine's zone.
	time.Local = time.UTC
	os.Exit(m.Run())
}

// conversationOf is what a foreign restore must carry over: user and assistant text and tool
// calls (name and arguments) in order, and tool results by call.
type conversationOf struct {
	Texts   []string
	Calls   []string
	Results map[string]string
}

func conversationFrom(events []session.Event, skipNote bool) conversationOf {
	c := conversationOf{Results: map[string]string{}}
	msgRole := map[session.Key]session.Role{}
	for _, e := range events {
		if e.Message != nil {
			msgRole[e.Key()] = e.Message.Role
		}
	}
	seen := map[session.Key]bool{}
	for _, e := range events {
		p := e.Part
		if p == nil || seen[e.Key()] {
			continue
		}
		seen[e.Key()] = true
		switch p.Type {
		case session.PartText:
			if p.Provenance == session.Injected {
				continue
			}
			if skipNote && strings.HasPrefix(p.Text, "[Restored by Pond]") {
				continue
			}
			if strings.TrimSpace(p.Text) != "" {
				c.Texts = append(c.Texts, strings.TrimPrefix(p.Text, "[tool result] "))
			}
		case session.PartToolCall:
			c.Calls = append(c.Calls, p.Name)
		}
	}
	return c
}

// TestForeignRestore restores the fixture sessions of each agent into every other agent and
// reads the result back with the target's adapter: nothing malformed, the deterministic id the
// outcome names, the restore mark and parent link, the note first, and the same user and
// assistant text and tool calls. Golden files hold every ordered pair for one session per
// agent (-update rewrites them).
func TestForeignRestore(t *testing.T) {
	ctx := context.Background()
	golden := map[string]bool{} // one golden session per source agent
	for _, cs := range corpus(t) {
		if !strings.HasPrefix(cs.name, "testdata") {
			continue // the adapters' own testdata cover every record family; the shared corpus adds nothing here
		}
		t.Run(cs.agent, func(t *testing.T) {
			var c adaptertest.Collector
			cs.read(t, &c)
			s := openStore(t)
			upsert(t, s, c.Events)
			for _, id := range roots(ctx, t, s) {
				for _, to := range resume.Targets() {
					if to == cs.agent {
						continue
					}
					t.Run(to+"/"+strings.ReplaceAll(id, "/", "_"), func(t *testing.T) {
						out := t.TempDir()
						o, err := resume.Restore(ctx, archive{s}, resume.Request{Env: rowsEnv, Session: id, To: to, OutDir: out, Now: fixedNow})
						if err != nil {
							t.Fatal(err)
						}
						if o.Status != resume.OK {
							t.Fatalf("%s: %s", o.Status, o.Message)
						}
						// A second restore gives the same id and collides.
						again, err := resume.Restore(ctx, archive{s}, resume.Request{Env: rowsEnv, Session: id, To: to, OutDir: out, Now: fixedNow})
						if err != nil {
							t.Fatal(err)
						}
						if again.Status != resume.TargetExists || again.ID != o.ID {
							t.Errorf("second restore: %s id %s, want target_exists with id %s", again.Status, again.ID, o.ID)
						}
						var back adaptertest.Collector
						readBack(t, to, out, o, &back)
						if len(back.Bad) > 0 {
							t.Errorf("malformed records in the restore: %v", back.Bad)
						}
						checkForeign(t, s, o, &back)
						key := cs.agent + "-to-" + to
						if !golden[key] && len(o.Files) > 0 {
							golden[key] = true
							checkGolden(t, key, out, o)
						}
					})
				}
			}
		})
	}
}

func checkForeign(t *testing.T, s *store.Store, o *resume.Outcome, back *adaptertest.Collector) {
	t.Helper()
	ctx := context.Background()
	got := back.Sessions()
	to, ok := all.ByName(o.To)
	if !ok {
		t.Fatalf("no adapter %s", o.To)
	}
	commands := to.Capabilities().Commands
	files := 0
	for i, f := range o.Files {
		if f.Sidecar {
			continue
		}
		files++
		if f.Fidelity != resume.Foreign && !adaptertest.OnlyPlaceMissing(f.Reason) {
			t.Errorf("%s: fidelity %s (%s), want foreign", f.Path, f.Fidelity, f.Reason)
		}
		rs, ok := got[f.ID]
		if !ok {
			t.Errorf("%s: the target adapter found no session %s (found %v)", f.Path, f.ID, keys(got))
			continue
		}
		var pond struct {
			RestoredFrom resume.Mark `json:"restored_from"`
		}
		_ = json.Unmarshal(rs.Options["pond"], &pond)
		if pond.RestoredFrom.Session != f.Session {
			t.Errorf("%s: options.pond.restored_from = %+v, want session %s", f.ID, pond.RestoredFrom, f.Session)
		}
		wantParent := f.Session
		if i > 0 {
			wantParent = o.ID
		}
		if rs.ParentSessionID != wantParent {
			t.Errorf("%s: parent %q, want %q", f.ID, rs.ParentSessionID, wantParent)
		}
		tr, err := s.ReadTranscript(ctx, f.Session)
		if err != nil {
			t.Fatal(err)
		}
		var mine []session.Event
		for _, e := range back.Events {
			if e.Key().SessionID == f.ID {
				mine = append(mine, e)
			}
		}
		if len(mine) < 2 || !strings.Contains(firstText(mine), "[Restored by Pond]") {
			t.Errorf("%s: the first message is not Pond's note: %q", f.ID, firstText(mine))
		}
		want, have := conversationFrom(tr.Events(), false), conversationFrom(mine, true)
		if diff := cmp.Diff(want.Texts, have.Texts); diff != "" {
			t.Errorf("%s: texts differ (-original +restored):\n%s", f.ID, diff)
		}
		if commands {
			// The target keeps each call as the command it ran, under its own name for one.
			if len(want.Calls) != len(have.Calls) {
				t.Errorf("%s: %d tool calls restored as commands %v, want one for each of %v", f.ID, len(have.Calls), have.Calls, want.Calls)
			}
		} else if diff := cmp.Diff(want.Calls, have.Calls); diff != "" {
			t.Errorf("%s: tool calls differ (-original +restored):\n%s", f.ID, diff)
		}
		for call, n := range answers(mine) {
			if n != 1 {
				t.Errorf("%s: tool call %s has %d results, want one", f.ID, call, n)
			}
		}
	}
	if len(got) != files {
		t.Errorf("the target adapter found %d sessions (%v), want %d", len(got), keys(got), files)
	}
}

// answers counts the results of each tool call of events, by call id.
func answers(events []session.Event) map[string]int {
	n := map[string]int{}
	seen := map[session.Key]bool{}
	for _, e := range events {
		p := e.Part
		if p == nil || seen[e.Key()] {
			continue
		}
		seen[e.Key()] = true
		switch p.Type {
		case session.PartToolCall:
			n[p.CallID] += 0
		case session.PartToolResult:
			n[p.CallID]++
		}
	}
	return n
}

func firstText(events []session.Event) string {
	for _, e := range events {
		if e.Part != nil && e.Part.Type == session.PartText {
			return e.Part.Text
		}
	}
	return ""
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkGolden compares the files of a restore with testdata/foreign/<name>.txtar.
func checkGolden(t *testing.T, name, root string, o *resume.Outcome) {
	t.Helper()
	// txtar layout: a comment, then "-- name --" and each file's content.
	var b strings.Builder
	b.WriteString("resume " + o.Session + " --to " + o.To + "\ncommand: " + strings.ReplaceAll(o.Command, root, "$OUT") + "\n")
	dumped := map[string]bool{}
	for _, f := range o.Files {
		rel, err := filepath.Rel(root, f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if f.Rows > 0 && dumped[f.Path] {
			continue
		}
		dumped[f.Path] = true
		data, err := os.ReadFile(f.Path)
		if f.Rows > 0 {
			data, err = dumpRows(f.Path) // a database: its rows, as text
		}
		if err != nil {
			t.Fatal(err)
		}
		data = []byte(strings.ReplaceAll(string(data), root, "$OUT")) // pi names parent files by path
		b.WriteString("-- " + filepath.ToSlash(rel) + " (" + string(f.Fidelity) + ") --\n")
		b.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	path := filepath.Join("testdata", "foreign", name+".txtar")
	data := []byte(b.String())
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(data)); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got; -update rewrites it):\n%s", path, diff)
	}
}

// dumpRows renders every row of an agent's database, one JSON object a line per table, tables
// by name and rows by rowid.
func dumpRows(path string) ([]byte, error) {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var tables []string
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	var b bytes.Buffer
	for _, tb := range tables {
		rows, err := db.Query(`SELECT * FROM "` + tb + `" ORDER BY rowid`)
		if err != nil {
			return nil, err
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return nil, err
			}
			m := map[string]any{"table": tb}
			for i, c := range cols {
				if v, ok := vals[i].([]byte); ok {
					vals[i] = string(v)
				}
				m[c] = vals[i]
			}
			line, _ := json.Marshal(m)
			b.Write(line)
			b.WriteByte('\n')
		}
		rows.Close()
	}
	return b.Bytes(), nil
}
