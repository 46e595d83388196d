package transfer

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/klauspost/compress/zstd"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/sessiongen"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store"
	"github.com/pondhq/pond/store/lance"
)

// archiveIn makes a Pond data directory in dir holding the sessions gen makes, captured as an
// adapter would, and returns its data directory.
func archiveIn(t *testing.T, dir string, sessions [][]session.Event) string {
	t.Helper()
	data := filepath.Join(dir, "data")
	s, err := store.Open(context.Background(), store.Options{DataDir: data, StateDir: filepath.Join(dir, "state"), Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, ev := range sessions {
		if _, err := s.Upsert(context.Background(), ev, store.Stamp{Adapter: "claude-code", PondVersion: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

func generate(seed uint64, n int) [][]session.Event {
	cfg := sessiongen.Default()
	cfg.Seed, cfg.Sessions, cfg.MessagesPerSess, cfg.PartsPerMessage = seed, n, 6, 2
	all := sessiongen.New(cfg).All()
	// Every few sessions a file part whose bytes Lance keeps beside the mirror's rows.
	for i := 0; i < len(all); i += 3 {
		m := all[i][1].Message
		all[i] = append(all[i], session.Event{Part: &session.Part{SessionID: m.SessionID, MessageID: m.ID, ID: "file", Ordinal: 99,
			Type: session.PartFile, Provenance: session.Conversational, MediaType: "image/png", FileName: "shot.png",
			Data: &session.FileData{Kind: session.FileBytes, Bytes: []byte{0x89, 'P', 'N', 'G', byte(i)}}}})
	}
	return all
}

func env(t *testing.T) Env {
	return Env{Scratch: t.TempDir(), PondVersion: "test"}
}

func endpoint(t testing.TB, raw string) Endpoint {
	t.Helper()
	ep, err := Parse(raw, lance.LocalDir(filepath.Join(t.TempDir(), "configured")))
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// copyAll copies from to to through the same calls pond copy makes, and returns the report.
func copyAll(t *testing.T, from, to string) *view.CopyReport {
	t.Helper()
	ctx := context.Background()
	e := env(t)
	src, err := OpenSource(ctx, endpoint(t, from), e)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := OpenDestination(ctx, endpoint(t, to), e, false)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{PondVersion: "test"}
	if dst.ep.Kind == KindArchive {
		opts.KeepVersions = -1
	}
	rep, err := Copy(ctx, src.Store, dst.Store, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := dst.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	if !rep.Verification.OK {
		t.Fatalf("verification failed: %+v", rep.Verification)
	}
	return rep
}

// openSessions opens the archive at raw to read, closed at the test's end, and lists its
// sessions.
func openSessions(t *testing.T, raw string) (*store.Store, []string) {
	t.Helper()
	o, err := OpenSource(context.Background(), endpoint(t, raw), env(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	ids, err := o.Store.SessionIDs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return o.Store, ids
}

// transcripts reads every session of the archive at raw as JSON lines, one string per session.
func transcripts(t *testing.T, raw string) map[string]string {
	t.Helper()
	ctx := context.Background()
	s, ids := openSessions(t, raw)
	out := map[string]string{}
	for _, id := range ids {
		tr, err := s.ReadTranscript(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, e := range tr.Events() {
			j, _ := json.Marshal(e)
			b.Write(j)
			b.WriteByte('\n')
		}
		out[id] = b.String()
	}
	return out
}

func sameTranscripts(t *testing.T, want, got map[string]string) {
	t.Helper()
	if len(want) != len(got) || len(want) == 0 {
		t.Fatalf("%d sessions, want %d", len(got), len(want))
	}
	for id, w := range want {
		if got[id] != w {
			t.Fatalf("session %s differs:\nwant %s\ngot  %s", id, w, got[id])
		}
	}
}

// files lists every file under dir with its size and modification time.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".readers" {
			// A read-only store registers its reads there (store/readers.go), so that the
			// archive's own prune keeps the versions it reads.
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fmt.Sprintf("%v %d %d", info.IsDir(), info.Size(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCopyLocalToLocalIsIdenticalAndLeavesTheSourceAlone(t *testing.T) {
	sessions := generate(1, 12)
	srcData := archiveIn(t, t.TempDir(), sessions)
	before := files(t, filepath.Join(srcData, "lance"))
	dst := filepath.Join(t.TempDir(), "copy")

	rep := copyAll(t, srcData, dst)
	if rep.Appended != 12 || rep.Grown != 0 || rep.Inserted.Sessions != 12 || rep.Inserted.Messages == 0 {
		t.Errorf("first copy: %+v", rep)
	}
	sameTranscripts(t, transcripts(t, srcData), transcripts(t, dst))
	// File bytes live in Lance beside the mirror's rows: they came across too.
	o, err := OpenSource(context.Background(), endpoint(t, dst), env(t))
	if err != nil {
		t.Fatal(err)
	}
	files0 := 0
	for _, ev := range sessions {
		if p := ev[len(ev)-1].Part; p != nil && p.ID == "file" {
			tr, err := o.Store.ReadTranscript(context.Background(), p.SessionID)
			if err != nil {
				t.Fatal(err)
			}
			for _, got := range tr.Parts[p.MessageID] {
				if got.ID == "file" && got.Data != nil && bytes.Equal(got.Data.Bytes, p.Data.Bytes) {
					files0++
				}
			}
		}
	}
	o.Close()
	if files0 != 4 {
		t.Errorf("%d of 4 file parts arrived with their bytes", files0)
	}

	after := files(t, filepath.Join(srcData, "lance"))
	if len(before) != len(after) {
		t.Fatalf("the source's Lance folder went from %d to %d entries", len(before), len(after))
	}
	for p, v := range before {
		if after[p] != v {
			t.Errorf("the copy changed the source's %s: %s -> %s", p, v, after[p])
		}
	}

	// A second copy of an unchanged source writes nothing.
	again := copyAll(t, srcData, dst)
	if again.Unchanged != 12 || again.Inserted != (view.Tally{}) {
		t.Errorf("unchanged re-copy: %+v", again)
	}
}

func TestIncrementalCopyAddsOnlyTheMissingRows(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	sessions := generate(2, 8)
	srcData := archiveIn(t, home, sessions[:5])
	dst := filepath.Join(t.TempDir(), "copy")
	first := copyAll(t, srcData, dst)
	if first.Appended != 5 {
		t.Fatalf("first copy: %+v", first)
	}

	// The source grows: three new sessions, and one stored session gets two new messages (one
	// with a part), as a session does while its agent still runs.
	grown := sessions[0][0].Session.ID
	at := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	more := []session.Event{{Session: sessions[0][0].Session},
		{Message: &session.Message{SessionID: grown, ID: "late-1", Role: session.RoleUser, Timestamp: at, Content: "one more question"}},
		{Part: &session.Part{SessionID: grown, MessageID: "late-1", ID: "p0", Type: session.PartText, Text: "one more question", Provenance: session.Conversational}},
		{Message: &session.Message{SessionID: grown, ID: "late-2", Role: session.RoleAssistant, Timestamp: at.Add(time.Second), Content: "an answer"}},
	}
	archiveIn(t, home, append(sessions[5:], more))
	var wantMsgs, wantParts int
	for _, ev := range sessions[5:] {
		for _, e := range ev {
			switch e.Kind() {
			case session.KindMessage:
				wantMsgs++
			case session.KindPart:
				wantParts++
			}
		}
	}
	second := copyAll(t, srcData, dst)
	if second.Appended != 3 || second.Grown != 1 || second.Unchanged != 4 {
		t.Errorf("second copy sessions: %+v", second)
	}
	if second.Inserted.Sessions != 3 || second.Inserted.Messages != wantMsgs+2 || second.Inserted.Parts != wantParts+1 {
		t.Errorf("second copy inserted %+v, want 3 sessions, %d messages, %d parts", second.Inserted, wantMsgs+2, wantParts+1)
	}
	sameTranscripts(t, transcripts(t, srcData), transcripts(t, dst))

	// And the destination holds every key once: checked by Verify in copyAll, and here by hand.
	o, err := OpenSource(ctx, endpoint(t, dst), env(t))
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	keys, err := o.Store.KeyCounts(ctx, store.TableMessages)
	if err != nil {
		t.Fatal(err)
	}
	for k, n := range keys {
		if n != 1 {
			t.Errorf("message %q stored %d times", k, n)
		}
	}
}

func TestPondFileRoundTrip(t *testing.T) {
	srcData := archiveIn(t, t.TempDir(), generate(3, 10))
	file := filepath.Join(t.TempDir(), "backup.pond")
	copyAll(t, srcData, file)
	m, err := ReadManifest(file)
	if err != nil {
		t.Fatal(err)
	}
	want := transcripts(t, srcData)
	if m.ArchiveVersion != ArchiveVersion || m.LayoutVersion != store.SchemaVersion || m.PondVersion != "test" || m.Rows.Sessions != len(want) || m.Rows.Messages == 0 || m.Rows.Parts == 0 {
		t.Errorf("manifest %+v", m)
	}
	sameTranscripts(t, want, transcripts(t, file))

	back := filepath.Join(t.TempDir(), "restored")
	copyAll(t, file, back)
	sameTranscripts(t, want, transcripts(t, back))

	// Copying into an existing .pond file adds to it.
	more := archiveIn(t, t.TempDir(), generate(4, 3))
	rep := copyAll(t, more, file)
	if rep.Appended != 3 {
		t.Errorf("copy into an existing .pond: %+v", rep)
	}
	if m2, err := ReadManifest(file); err != nil || m2.Rows.Sessions != len(want)+3 {
		t.Errorf("manifest after adding: %+v, %v", m2, err)
	}
}

// plant opens the destination's Lance tables directly, as only a test may, to damage them.
func plant(t *testing.T, dst string, damage func(*store.Store)) *view.CopyVerification {
	t.Helper()
	ctx := context.Background()
	o, err := OpenDestination(ctx, endpoint(t, dst), env(t), false)
	if err != nil {
		t.Fatal(err)
	}
	damage(o.Store)
	o.Close()
	src, err := OpenSource(ctx, endpoint(t, dst+"-src"), env(t))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ro, err := OpenDestination(ctx, endpoint(t, dst), env(t), true)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	v, err := Verify(ctx, src.Store, ro.Store)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestVerifyFindsMissingAndDuplicateRows(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	srcData := archiveIn(t, filepath.Join(dir, "x"), generate(5, 4))
	if err := os.Rename(filepath.Join(srcData, "lance"), filepath.Join(dir, "dst-src")); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "dst")
	copyAll(t, filepath.Join(dir, "dst-src"), dst)

	v := plant(t, dst, func(s *store.Store) {})
	if !v.OK {
		t.Fatalf("an intact copy fails: %+v", v)
	}
	v = plant(t, dst, func(s *store.Store) {
		n, err := s.Table(store.TableMessages).Delete(ctx, "id = 'm0001'")
		if err != nil || n == 0 {
			t.Fatalf("delete: %d, %v", n, err)
		}
	})
	if v.OK || v.Tables[1].Missing == 0 || v.Tables[1].Duplicates != 0 || !strings.Contains(strings.Join(v.Tables[1].MissingKeys, " "), "/m0001") {
		t.Errorf("a deleted message: %+v", v.Tables[1])
	}
	v = plant(t, dst, func(s *store.Store) {
		var rec arrow.Record
		err := s.Table(store.TableParts).Scan(ctx, lance.Query{Limit: 1}, func(r arrow.Record) error {
			r.Retain()
			rec = r
			return nil
		})
		if err != nil || rec == nil {
			t.Fatalf("scan: %v", err)
		}
		defer rec.Release()
		if err := s.Table(store.TableParts).Append(ctx, rec); err != nil {
			t.Fatal(err)
		}
	})
	if v.OK || v.Tables[2].Duplicates != 1 || len(v.Tables[2].DuplicateKeys) != 1 {
		t.Errorf("a duplicated part: %+v", v.Tables[2])
	}
}

func TestUnpackRefusesEntriesOutsideTheArchive(t *testing.T) {
	for _, name := range []string{"../evil", "lance/../../evil", "/etc/evil", "elsewhere/file"} {
		var buf bytes.Buffer
		zw, _ := zstd.NewWriter(&buf)
		tw := tar.NewWriter(zw)
		m, _ := json.Marshal(Manifest{ArchiveVersion: 1, LayoutVersion: 1})
		tw.WriteHeader(&tar.Header{Name: ManifestName, Size: int64(len(m)), Mode: 0o600, Typeflag: tar.TypeReg})
		tw.Write(m)
		tw.WriteHeader(&tar.Header{Name: name, Size: 1, Mode: 0o600, Typeflag: tar.TypeReg})
		tw.Write([]byte("x"))
		tw.Close()
		zw.Close()
		dir := t.TempDir()
		file := filepath.Join(dir, "bad.pond")
		if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out", "inner")
		if _, _, err := Unpack(file, out); err == nil || !strings.Contains(err.Error(), "not a readable .pond") {
			t.Errorf("%q: %v", name, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "evil")); err == nil {
			t.Errorf("%q escaped the archive", name)
		}
	}
	// A newer archive version is refused by name.
	var buf bytes.Buffer
	zw, _ := zstd.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	m, _ := json.Marshal(Manifest{ArchiveVersion: ArchiveVersion + 1})
	tw.WriteHeader(&tar.Header{Name: ManifestName, Size: int64(len(m)), Mode: 0o600, Typeflag: tar.TypeReg})
	tw.Write(m)
	tw.Close()
	zw.Close()
	file := filepath.Join(t.TempDir(), "new.pond")
	os.WriteFile(file, buf.Bytes(), 0o600)
	if _, err := ReadManifest(file); err == nil || !strings.Contains(err.Error(), "upgrade Pond") {
		t.Errorf("newer version: %v", err)
	}
}

// embedSome gives the archive in data a vector (made from its text: no model needed) for every
// searchable message of every other session, as model, and returns how many it wrote.
func embedSome(t *testing.T, dir, model string) int {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, store.Options{DataDir: filepath.Join(dir, "data"), StateDir: filepath.Join(dir, "state"), Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows, err := s.Mirror().DB().QueryContext(ctx, `SELECT session_id, message_id, search_text FROM messages
		WHERE search_text != '' ORDER BY session_id, message_id`)
	if err != nil {
		t.Fatal(err)
	}
	var vecs []store.Vector
	seen := map[string]int{}
	for rows.Next() {
		var v store.Vector
		if err := rows.Scan(&v.SessionID, &v.MessageID, &v.Text); err != nil {
			t.Fatal(err)
		}
		if _, ok := seen[v.SessionID]; !ok {
			seen[v.SessionID] = len(seen)
		}
		if seen[v.SessionID]%2 == 1 {
			continue
		}
		v.Model, v.Values = model, make([]float32, store.VectorDim)
		for i := range v.Values {
			v.Values[i] = float32(len(v.Text)%97+i) / 1000
		}
		vecs = append(vecs, v)
	}
	rows.Close()
	n, err := s.PutVectors(ctx, vecs)
	if err != nil || n != len(vecs) || n == 0 {
		t.Fatalf("put %d of %d vectors: %v", n, len(vecs), err)
	}
	return n
}

// vectorsOf reads every vector of the archive at raw, by message key.
func vectorsOf(t *testing.T, raw string) map[string]string {
	t.Helper()
	s, ids := openSessions(t, raw)
	out := map[string]string{}
	err := s.ReadVectors(context.Background(), ids, func(vs []store.Vector) error {
		for _, v := range vs {
			out[v.SessionID+"/"+v.MessageID] = fmt.Sprint(v.Model, v.Values)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The copied messages keep their vectors, through a .pond file and back, without a model.
func TestCopyKeepsVectors(t *testing.T) {
	home := t.TempDir()
	srcData := archiveIn(t, home, generate(5, 6))
	embedded := embedSome(t, home, "test-model")
	want := vectorsOf(t, srcData)
	if len(want) != embedded {
		t.Fatalf("the source holds %d vectors, %d written", len(want), embedded)
	}
	file := filepath.Join(t.TempDir(), "backup.pond")
	if rep := copyAll(t, srcData, file); rep.Vectors != embedded {
		t.Errorf("copy into .pond took %d vectors, want %d", rep.Vectors, embedded)
	}
	if m, err := ReadManifest(file); err != nil || m.EmbeddingModel != "test-model" {
		t.Errorf("the .pond manifest's embedding model: %+v, %v", m, err)
	}
	back := filepath.Join(t.TempDir(), "restored")
	copyAll(t, file, back)
	got := vectorsOf(t, back)
	if len(got) != len(want) {
		t.Fatalf("%d vectors after the round trip, want %d", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("vector of %s: %.60s…, want %.60s…", k, got[k], v)
		}
	}
	// A re-copy with nothing new takes no vector again.
	if rep := copyAll(t, srcData, back); rep.Vectors != 0 || rep.Unchanged != 6 {
		t.Errorf("unchanged re-copy: %d vectors, %d unchanged", rep.Vectors, rep.Unchanged)
	}
}

// An erase at the source travels with a copy: the session is not copied, it goes on the
// destination's erase list (so a sync there refuses it), and a destination that holds the
// session is told, not changed.
func TestCopyCarriesErasures(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	sessions := generate(6, 4)
	srcData := archiveIn(t, home, sessions)
	gone := sessions[1][0].Session.ID
	// Another destination already holds every session, the erased one too.
	holder := archiveIn(t, t.TempDir(), sessions)

	s, err := store.Open(ctx, store.Options{DataDir: srcData, StateDir: filepath.Join(home, "state"), Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Erase(ctx, view.EraseRequest{Sessions: []string{gone}}, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()

	dst := filepath.Join(t.TempDir(), "copy")
	rep := copyAll(t, srcData, dst)
	if rep.Appended != 3 || rep.ErasuresCarried != 1 || len(rep.ErasedHeld) != 0 {
		t.Errorf("copy of an archive with an erase: %+v", rep)
	}
	o, err := OpenDestination(ctx, endpoint(t, dst), env(t), false)
	if err != nil {
		t.Fatal(err)
	}
	denied, err := o.Store.Denied()
	if _, ok := denied[gone]; err != nil || !ok {
		t.Errorf("the destination's erase list %v, %v; want %s on it", denied, err, gone)
	}
	out, err := o.Store.Upsert(ctx, clone(sessions[1]), store.Stamp{Adapter: "claude-code"})
	if err != nil || out.Inserted != (view.Tally{}) || out.Erased.Sessions != 1 {
		t.Errorf("a sync of the erased session at the destination: %+v, %v", out, err)
	}
	o.Close()

	rep = copyAll(t, srcData, holder)
	if rep.ErasuresCarried != 0 || len(rep.ErasedHeld) != 1 || rep.ErasedHeld[0] != gone {
		t.Errorf("copy into an archive holding the erased session: %+v", rep)
	}
	if got := transcripts(t, holder); got[gone] == "" {
		t.Errorf("the destination's own copy of %s was changed", gone)
	}
}

// clone deep-copies events through JSON, so a second write does not share the first's structs.
func clone(events []session.Event) []session.Event {
	out := make([]session.Event, len(events))
	for i, e := range events {
		b, _ := json.Marshal(e)
		json.Unmarshal(b, &out[i])
	}
	return out
}
