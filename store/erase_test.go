package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/sessiongen"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/lance"
)

// The secrets an erase must take off the disk: one in message text, tool parameters, a tool
// result and the raw record; one in the project path (it reaches the filter indexes and the
// mirror's scope counters).
const (
	eraseToken   = "zqxsecret4242token"
	eraseProject = "/home/dev/zqxprojectpath"
)

// secretSession is a session carrying eraseToken everywhere a value can be stored.
func secretSession(id, parent string) []session.Event {
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	raw := json.RawMessage(`{"record":{"type":"user","text":"my key is ` + eraseToken + `"}}`)
	return []session.Event{
		{Session: &session.Session{ID: id, SourceAgent: "claude-code", Project: eraseProject, ParentSessionID: parent, CreatedAt: t0,
			Options: session.Options{"source": raw}}},
		{Message: &session.Message{SessionID: id, ID: "m1", Role: session.RoleUser, Timestamp: t0.Add(time.Second),
			Options: session.Options{"source": raw}}},
		{Part: &session.Part{SessionID: id, MessageID: "m1", ID: "p0", Type: session.PartText, Provenance: session.Conversational,
			Text: "deploy with the key " + eraseToken + " please"}},
		{Message: &session.Message{SessionID: id, ID: "m2", Role: session.RoleAssistant, Timestamp: t0.Add(2 * time.Second)}},
		{Part: &session.Part{SessionID: id, MessageID: "m2", ID: "p0", Type: session.PartToolCall, Provenance: session.Conversational,
			CallID: "c1", Name: "Bash", Params: json.RawMessage(`{"command":"export KEY=` + eraseToken + `"}`)}},
		{Part: &session.Part{SessionID: id, MessageID: "m2", ID: "p1", Type: session.PartToolResult, Provenance: session.Conversational,
			CallID: "c1", Name: "Bash", Result: json.RawMessage(`"KEY=` + eraseToken + `"`)}},
		{Part: &session.Part{SessionID: id, MessageID: "m2", ID: "p2", Type: session.PartFile, Provenance: session.Conversational,
			MediaType: "text/plain", FileName: "env.txt", Data: &session.FileData{Kind: session.FileBytes, Bytes: []byte("KEY=" + eraseToken)}}},
	}
}

// findSecret looks for needle everywhere the archive could keep it and names each place: a
// byte search over every file of the data directory; a decoded scan of every string and binary
// column of every Lance table, read back through the store; a dump of every row of every
// table of the mirror; and the terms of its full-text indexes (FTS5 keeps terms
// prefix-compressed, where a byte search may miss them).
func findSecret(t *testing.T, s *Store, needle string) []string {
	t.Helper()
	ctx := context.Background()
	var found []string
	err := filepath.WalkDir(s.opts.DataDir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(needle)) {
			rel, _ := filepath.Rel(s.opts.DataDir, path)
			found = append(found, "file "+rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range tableNames {
		err := s.tables[name].Scan(ctx, lance.Query{BatchRows: 1024}, func(r arrow.Record) error {
			for c := 0; c < int(r.NumCols()); c++ {
				col := r.Schema().Field(c).Name
				for i := 0; i < int(r.NumRows()); i++ {
					var v []byte
					switch a := r.Column(c).(type) {
					case *array.String:
						v = []byte(a.Value(i))
					case *array.Binary:
						v = a.Value(i)
					}
					if bytes.Contains(v, []byte(needle)) {
						found = append(found, fmt.Sprintf("lance %s.%s", name, col))
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	db := s.mirror.DB()
	var tables []string
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	for _, table := range tables {
		rows, err := db.QueryContext(ctx, `SELECT * FROM "`+table+`"`)
		if err != nil {
			continue // a virtual table that cannot be read whole
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				var b []byte
				switch v := v.(type) {
				case string:
					b = []byte(v)
				case []byte:
					b = v
				}
				if bytes.Contains(b, []byte(needle)) {
					found = append(found, fmt.Sprintf("mirror %s.%s", table, cols[i]))
				}
			}
		}
		rows.Close()
	}
	for _, fts := range []string{"messages_fts", "messages_cjk"} {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab_`+fts+` USING fts5vocab(main, `+fts+`, 'row')`); err != nil {
			t.Fatal(err)
		}
		var n int
		err = conn.QueryRowContext(ctx, `SELECT count(*) FROM temp.vocab_`+fts+` WHERE instr(term, ?) > 0`, strings.ToLower(needle)).Scan(&n)
		if err != nil && err != sql.ErrNoRows {
			t.Fatal(err)
		}
		conn.ExecContext(ctx, `DROP TABLE temp.vocab_`+fts)
		conn.Close()
		if n > 0 {
			found = append(found, "mirror terms of "+fts)
		}
	}
	return found
}

func hasPlace(found []string, prefix string) bool {
	for _, f := range found {
		if strings.HasPrefix(f, prefix) {
			return true
		}
	}
	return false
}

func TestEraseLeavesNoTrace(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	// The erased sessions share their fragments with others: one batch holds them all.
	var batch []session.Event
	batch = append(batch, chat("before", "codex-cli", "/home/dev/web", "", base, "the flaky payment test", "fixed the payment test")...)
	batch = append(batch, secretSession("victim", "")...)
	batch = append(batch, secretSession("victim-sub", "victim")...)
	batch = append(batch, chat("after", "gemini-cli", "/home/dev/api", "", base, "tune the pgx pool", "raised MaxConns")...)
	upsert(t, s, batch)
	upsert(t, s, everyKind("keep"))
	// The text and filter indexes hold the secret too.
	s.textIndex.routeLimit = 1
	if _, err := s.MaintainSearchIndexes(ctx, true); err != nil {
		t.Fatal(err)
	}
	upsert(t, s, chat("later", "codex-cli", "/home/dev/web", "", base.Add(time.Hour), "a later session about caching"))

	for needle, places := range map[string][]string{
		eraseToken:   {"file lance/", "file mirror.db", "lance messages.", "lance parts.", "lance sessions.", "mirror message_rows.", "mirror part_rows.", "mirror sessions."},
		eraseProject: {"file lance/", "file mirror.db", "lance messages.", "lance sessions.", "mirror message_rows.", "mirror sessions.", "mirror _pond_search_scope."},
	} {
		found := findSecret(t, s, needle)
		for _, place := range places {
			if !hasPlace(found, place) {
				t.Errorf("before the erase, %q was not found in %s (found: %v): the check is blind", needle, place, found)
			}
		}
	}
	if found := findSecret(t, s, eraseToken); !hasPlace(found, "mirror terms of messages_fts") {
		t.Errorf("before the erase, the token is not among the full-text terms: %v", found)
	}
	keep, err := s.ReadTranscript(ctx, "keep")
	if err != nil {
		t.Fatal(err)
	}
	countsBefore, err := s.mirror.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}

	dry, err := s.Erase(ctx, view.EraseRequest{Sessions: []string{"victim", "nosuch"}, DryRun: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(dry.Sessions), 2; got != want || !cmp.Equal(dry.NotFound, []string{"nosuch"}) {
		t.Fatalf("dry run: got %d sessions, not found %v; want %d (with the sub-agent) and [nosuch]", got, dry.NotFound, want)
	}
	if found := findSecret(t, s, eraseToken); len(found) == 0 {
		t.Fatal("a dry run erased")
	}

	var steps []string
	rep, err := s.Erase(ctx, view.EraseRequest{Sessions: []string{"victim"}}, func(p view.EraseProgress) { steps = append(steps, p.Step) })
	if err != nil {
		t.Fatal(err)
	}
	want := view.Tally{Sessions: 2, Messages: 4, Parts: 8}
	if rep.Removed != want {
		t.Errorf("removed %+v, want %+v", rep.Removed, want)
	}
	if rep.Rewritten.Messages == 0 || rep.BytesReclaimed <= 0 || rep.Files == 0 {
		t.Errorf("report: %+v", rep)
	}
	t.Logf("erase: %d rows rewritten, %d files removed, %d bytes reclaimed, indexes %v, steps %v, %s",
		rep.Rewritten.Messages+rep.Rewritten.Parts+rep.Rewritten.Sessions, rep.Files, rep.BytesReclaimed, rep.IndexesRebuilt, steps, rep.Elapsed)

	check := func(when string) {
		t.Helper()
		for _, needle := range []string{eraseToken, eraseProject} {
			if found := findSecret(t, s, needle); len(found) > 0 {
				t.Errorf("%s: %q is still in %v", when, needle, found)
			}
		}
		c, err := s.mirror.Counts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := (countsBefore.Sessions - 2); c.Sessions != want || c.Messages != countsBefore.Messages-4 || c.Parts != countsBefore.Parts-8 {
			t.Errorf("%s: counts %+v, before %+v", when, c, countsBefore)
		}
		drift, err := s.Verify(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range drift {
			if !d.OK() {
				t.Errorf("%s: drift %+v", when, d)
			}
		}
		got, err := s.ReadTranscript(ctx, "keep")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(keep.Events(), got.Events()); diff != "" {
			t.Errorf("%s: another session changed (-before +after):\n%s", when, diff)
		}
		res, err := s.Search(ctx, view.SearchRequest{Query: "pgx pool"})
		if err != nil || len(res.Sessions) == 0 || res.Sessions[0].SessionID != "after" {
			t.Errorf("%s: search for a neighbour's text: %+v %v", when, res, err)
		}
	}
	check("right after the erase")
	if _, err := s.Upkeep(ctx, UpkeepOptions{Steps: []view.Step{view.StepCompact, view.StepIndex, view.StepPrune}, KeepVersions: -1}); err != nil {
		t.Fatal(err)
	}
	check("after upkeep")

	// The agent's file still holds the sessions: a sync offers them again, and they stay out.
	out := upsert(t, s, append(secretSession("victim", ""), secretSession("victim-sub", "victim")...))
	if out.Inserted != (view.Tally{}) || out.Erased.Messages != 4 {
		t.Errorf("re-sync of erased sessions: inserted %+v, erased %+v", out.Inserted, out.Erased)
	}
	check("after a re-sync")

	lifted, notFound, err := s.Lift(ctx, []string{"victim", "other"})
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(lifted, []string{"victim"}) || !cmp.Equal(notFound, []string{"other"}) {
		t.Errorf("lift: lifted %v, not found %v", lifted, notFound)
	}
	out = upsert(t, s, secretSession("victim", ""))
	if out.Inserted.Messages != 2 {
		t.Errorf("after --lift, a sync stores the session again: inserted %+v", out.Inserted)
	}
	if found := findSecret(t, s, eraseToken); !hasPlace(found, "lance messages.") {
		t.Errorf("after --lift and a sync, the session is not back: %v", found)
	}
}

func TestEraseByFilters(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	day := func(d int) time.Time { return time.Date(2026, 3, d, 10, 0, 0, 0, time.UTC) }
	upsert(t, s, chat("old-codex", "codex-cli", "/home/dev/web", "", day(1), "old"))
	upsert(t, s, chat("new-codex", "codex-cli", "/home/dev/web", "", day(9), "new"))
	upsert(t, s, chat("proj", "claude-code", "/home/dev/secret", "", day(5), "in the project"))
	upsert(t, s, chat("proj-sub", "claude-code", "/home/dev/secret/sub", "", day(5), "under the project"))
	upsert(t, s, chat("proj-like", "claude-code", "/home/dev/secretive", "", day(5), "a sibling folder"))
	for _, tc := range []struct {
		name string
		req  view.EraseRequest
		want []string
	}{
		{"agent_before", view.EraseRequest{Agent: "codex-cli", Before: day(5)}, []string{"old-codex"}},
		{"project_and_folders_under_it", view.EraseRequest{Project: "/home/dev/secret/"}, []string{"proj", "proj-sub"}},
		{"project_glob", view.EraseRequest{Project: "/home/dev/secret*"}, []string{"proj", "proj-like", "proj-sub"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.DryRun = true
			rep, err := s.Erase(ctx, tc.req, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range rep.Sessions {
				got = append(got, e.ID)
			}
			if !cmp.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	if _, err := s.Erase(ctx, view.EraseRequest{}, nil); err == nil {
		t.Error("an erase without a selection was accepted")
	}
}

// vectorIndexBytes is the size of the messages table's vector index files (the folders under
// _indices holding IVF_PQ's auxiliary.idx, where its codes are).
func vectorIndexBytes(t *testing.T, s *Store) int64 {
	t.Helper()
	root := filepath.Join(s.Location().Dir(), TableMessages+".lance", "_indices")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(root, d.Name(), "auxiliary.idx")); err != nil {
			continue
		}
		files, _ := os.ReadDir(filepath.Join(root, d.Name()))
		for _, f := range files {
			if info, err := f.Info(); err == nil {
				total += info.Size()
			}
		}
	}
	return total
}

// An erase drops the erased messages' codes from the vector index: by the compaction's remap,
// without training the index again, when the session shares its fragments with others; by a
// rebuild when it had fragments of its own (the delete drops those whole, and no remap would
// see them).
func TestEraseDropsVectorCodes(t *testing.T) {
	for _, shared := range []bool{true, false} {
		t.Run(map[bool]string{true: "shared_fragments", false: "own_fragments"}[shared], func(t *testing.T) {
			ctx := context.Background()
			s := openTestStore(t, t.TempDir())
			s.vectorIndexMin = 100
			cfg := sessiongen.Default()
			cfg.Seed, cfg.Sessions, cfg.MessagesPerSess = 7, 12, 30
			all := sessiongen.New(cfg).All()
			victim := all[5][0].Session.ID
			var batch []session.Event
			for i, ev := range all {
				if !shared && i == 5 {
					upsert(t, s, ev) // its own Lance commit: fragments of its own
					continue
				}
				batch = append(batch, ev...)
			}
			upsert(t, s, batch)
			erasedVectors := 0
			for _, v := range randomVectors(t, s, 7) {
				if v.SessionID == victim {
					erasedVectors++
				}
			}
			if built, err := s.EnsureVectorIndex(ctx); err != nil || !built {
				t.Fatalf("vector index: %v, %v", built, err)
			}
			before := vectorIndexBytes(t, s)

			rep, err := s.Erase(ctx, view.EraseRequest{Sessions: []string{victim}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			after := vectorIndexBytes(t, s)
			rebuilt := slices.Contains(rep.IndexesRebuilt, vectorIndexName)
			if rebuilt == shared {
				t.Errorf("vector index rebuilt: %v (indexes rebuilt %v)", rebuilt, rep.IndexesRebuilt)
			}
			// Each erased message took its PQ code (vectorSubSpaces bytes) and row id along (a
			// few bytes of the file's metadata change with them).
			if want := int64(erasedVectors * (vectorSubSpaces + 8)); shared && (before-after < want || before-after > want+256) {
				t.Errorf("vector index %d -> %d bytes; want about %d fewer (%d erased vectors)", before, after, want, erasedVectors)
			}
			if !shared && (after >= before || after == 0) {
				t.Errorf("rebuilt vector index %d -> %d bytes", before, after)
			}
			ixs, err := s.tables[TableMessages].Indexes(ctx)
			if err != nil || !slices.ContainsFunc(ixs, isCurrentVectorIndex) {
				t.Fatalf("no vector index after the erase: %+v %v", ixs, err)
			}
			if n, err := s.tables[TableMessages].Count(ctx, "session_id = "+lance.Quote(victim)); err != nil || n != 0 {
				t.Errorf("%d rows of the erased session left, %v", n, err)
			}
		})
	}
}

// randomVectors gives every searchable message of s a random vector (seeded) and returns them.
func randomVectors(t testing.TB, s *Store, seed uint64) []Vector {
	t.Helper()
	ctx := context.Background()
	rows, err := s.mirror.DB().QueryContext(ctx, `SELECT session_id, message_id, search_text FROM messages WHERE search_text != ''`)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	var vecs []Vector
	for rows.Next() {
		v := Vector{Model: "test", Values: make([]float32, VectorDim)}
		if err := rows.Scan(&v.SessionID, &v.MessageID, &v.Text); err != nil {
			t.Fatal(err)
		}
		for i := range v.Values {
			v.Values[i] = float32(rng.NormFloat64())
		}
		vecs = append(vecs, v)
	}
	rows.Close()
	for lo := 0; lo < len(vecs); lo += 4096 {
		if _, err := s.PutVectors(ctx, vecs[lo:min(lo+4096, len(vecs))]); err != nil {
			t.Fatal(err)
		}
	}
	return vecs
}
