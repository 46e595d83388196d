package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/pondhq/pond/embed"
	"github.com/pondhq/pond/embed/onnx"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/lance"
)

// openEmbedder opens the registry-packaged test model, optionally under another name (a copy
// of its config, the same files), as a model change would present itself.
func openEmbedder(t testing.TB, rename string) *onnx.Embedder {
	t.Helper()
	lib, dir := os.Getenv("POND_ONNXRUNTIME_LIB"), os.Getenv("POND_TEST_MODEL_DIR")
	if lib == "" || dir == "" {
		t.Fatal("POND_ONNXRUNTIME_LIB and POND_TEST_MODEL_DIR must be set: run the tests with make test")
	}
	if _, err := onnx.Init(lib); err != nil {
		t.Fatal(err)
	}
	if rename != "" {
		cfg, err := embed.LoadModelConfig(dir)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Name = rename
		other := t.TempDir()
		for _, f := range []string{"model.onnx", "tokenizer.json"} {
			if err := os.Symlink(filepath.Join(dir, f), filepath.Join(other, f)); err != nil {
				t.Fatal(err)
			}
		}
		b, _ := json.Marshal(cfg)
		if err := os.WriteFile(filepath.Join(other, embed.ConfigFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		dir = other
	}
	e, err := onnx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

type storedVector struct {
	text, model string
	vec         []float32
}

func readVectors(t testing.TB, s *Store) map[string]storedVector {
	t.Helper()
	out := map[string]storedVector{}
	q := lance.Query{Columns: []string{"session_id", "id", "search_text", "vector", "embedding_model"}, Filter: searchable}
	err := s.Table(TableMessages).Scan(context.Background(), q, func(r arrow.Record) error {
		sess, ids := r.Column(0).(*array.String), r.Column(1).(*array.String)
		text, model := r.Column(2).(*array.String), r.Column(4).(*array.String)
		vecs := r.Column(3).(*array.FixedSizeList)
		vals := vecs.ListValues().(*array.Float32).Float32Values()
		for i := 0; i < int(r.NumRows()); i++ {
			sv := storedVector{text: text.Value(i)}
			if !model.IsNull(i) {
				sv.model = model.Value(i)
			}
			if !vecs.IsNull(i) {
				sv.vec = append([]float32(nil), vals[i*VectorDim:(i+1)*VectorDim]...)
			}
			out[sess.Value(i)+"/"+ids.Value(i)] = sv
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func cosine(a, b []float32) float64 {
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot
}

func TestBackfillIsResumableAndReembedsOnModelChange(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	for i := range 6 {
		upsert(t, s, everyKind(fmt.Sprintf("s%d", i)))
	}
	e := openEmbedder(t, "")
	counts, err := s.EmbedCounts(ctx, e.Model())
	if err != nil {
		t.Fatal(err)
	}
	if counts.Searchable < 12 || counts.Embedded != 0 {
		t.Fatalf("counts before backfill %+v, want >= 12 searchable and none embedded", counts)
	}

	// Interrupted after the first committed batch: that batch stays, the rest is pending.
	cctx, cancel := context.WithCancel(ctx)
	rep, err := s.Backfill(cctx, e, BackfillOptions{BatchRows: 5, Progress: func(BackfillProgress) { cancel() }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted backfill: err %v, want context.Canceled", err)
	}
	if rep.Embedded != 5 || rep.Remaining != counts.Searchable-5 {
		t.Fatalf("interrupted backfill %+v, want 5 embedded and %d remaining", rep, counts.Searchable-5)
	}

	var seen []BackfillProgress
	rep, err = s.Backfill(ctx, e, BackfillOptions{BatchRows: 5, Progress: func(p BackfillProgress) { seen = append(seen, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if int64(rep.Embedded) != counts.Searchable-5 || rep.Remaining != 0 {
		t.Fatalf("resumed backfill %+v, want the remaining %d", rep, counts.Searchable-5)
	}
	if last := seen[len(seen)-1]; last.Done != last.Total {
		t.Errorf("last progress %+v, want done == total", last)
	}
	stored := readVectors(t, s)
	if int64(len(stored)) != counts.Searchable {
		t.Fatalf("read %d searchable messages back, want %d", len(stored), counts.Searchable)
	}
	for key, sv := range stored {
		if sv.vec == nil || sv.model != e.Model() {
			t.Fatalf("%s: vector %v model %q after backfill", key, sv.vec != nil, sv.model)
		}
		want, err := e.Embed(ctx, []string{sv.text}, embed.Passage)
		if err != nil {
			t.Fatal(err)
		}
		if c := cosine(sv.vec, want[0]); c < 0.999 {
			t.Errorf("%s: stored vector has cosine %.5f with its text's embedding", key, c)
		}
	}
	var mirrored int64
	if err := s.Mirror().DB().QueryRow(`SELECT count(*) FROM messages WHERE embedding_model = ?`, e.Model()).Scan(&mirrored); err != nil {
		t.Fatal(err)
	}
	if mirrored != counts.Searchable {
		t.Errorf("mirror records %d messages embedded by %s, want %d", mirrored, e.Model(), counts.Searchable)
	}
	noDrift(t, s, "mirror drift after backfill")

	// Nothing left: a second run is a no-op.
	if rep, err := s.Backfill(ctx, e, BackfillOptions{}); err != nil || rep.Embedded != 0 {
		t.Fatalf("repeat backfill %+v, %v; want nothing embedded", rep, err)
	}

	// Another model: without --force-embed its rows stay; with it, every row is re-embedded.
	other := openEmbedder(t, "acme/renamed-e5")
	if rep, err := s.Backfill(ctx, other, BackfillOptions{}); err != nil || rep.Embedded != 0 {
		t.Fatalf("backfill with a new model, no force: %+v, %v; want nothing embedded", rep, err)
	}
	rep, err = s.Backfill(ctx, other, BackfillOptions{Force: true, BatchRows: 7})
	if err != nil {
		t.Fatal(err)
	}
	if int64(rep.Embedded) != counts.Searchable {
		t.Fatalf("forced backfill embedded %d, want %d", rep.Embedded, counts.Searchable)
	}
	after, err := s.EmbedCounts(ctx, other.Model())
	if err != nil {
		t.Fatal(err)
	}
	if after.ThisModel != counts.Searchable {
		t.Errorf("counts after forced backfill %+v, want all %d by %s", after, counts.Searchable, other.Model())
	}
	for key, sv := range readVectors(t, s) {
		if sv.text != stored[key].text {
			t.Errorf("%s: search text changed by the backfill", key)
		}
	}
}

func TestBackfillRefusesWrongDimensions(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	dir := os.Getenv("POND_TEST_MODEL_DIR")
	cfg, err := embed.LoadModelConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Dimensions = 768
	l := embed.NewLazy(cfg, func() (embed.Model, error) { return nil, errors.New("not loaded in this test") }, 0)
	if _, err := s.Backfill(context.Background(), l, BackfillOptions{}); err == nil {
		t.Fatal("backfill with a 768-dimension model: got nil error")
	}
}

// A message that gains text after it was embedded loses its stale vector and is embedded again.
func TestReindexedMessageIsEmbeddedAgain(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	e := openEmbedder(t, "")
	sess := &session.Session{ID: "s", SourceAgent: "claude-code", Project: "/p", CreatedAt: base}
	msg := &session.Message{SessionID: "s", ID: "m", Role: session.RoleAssistant, Timestamp: base}
	first := &session.Part{SessionID: "s", MessageID: "m", ID: "a", Type: session.PartText, Provenance: session.Conversational, Text: "looking at the flaky test"}
	upsert(t, s, []session.Event{{Session: sess}, {Message: msg}, {Part: first}})
	if rep, err := s.Backfill(ctx, e, BackfillOptions{}); err != nil || rep.Embedded != 1 {
		t.Fatalf("backfill %+v, %v", rep, err)
	}
	later := &session.Part{SessionID: "s", MessageID: "m", ID: "b", Ordinal: 1, Type: session.PartText, Provenance: session.Conversational, Text: "the fix is a lock around the temp dir"}
	upsert(t, s, []session.Event{{Session: sess}, {Message: msg}, {Part: later}})
	if got := readVectors(t, s)["s/m"]; got.vec != nil || got.model != "" {
		t.Fatalf("after reindex: vector kept %v, model %q; want both cleared", got.vec != nil, got.model)
	}
	var mirrored *string
	s.Mirror().DB().QueryRow(`SELECT embedding_model FROM messages WHERE message_id = 'm'`).Scan(&mirrored)
	if mirrored != nil {
		t.Fatalf("after reindex the mirror still says %q embedded the message", *mirrored)
	}
	if rep, err := s.Backfill(ctx, e, BackfillOptions{}); err != nil || rep.Embedded != 1 {
		t.Fatalf("backfill after reindex %+v, %v; want the message embedded again", rep, err)
	}
	got := readVectors(t, s)["s/m"]
	want, err := e.Embed(ctx, []string{got.text}, embed.Passage)
	if err != nil {
		t.Fatal(err)
	}
	if c := cosine(got.vec, want[0]); c < 0.999 {
		t.Errorf("re-embedded vector has cosine %.5f with the new text's", c)
	}
}

// Upkeep embeds in bounded rounds, then compacts what the backfill's commits left, keeping
// every row and vector.
func TestUpkeepEmbedsInRoundsThenCompacts(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	for i := range 4 {
		upsert(t, s, everyKind(fmt.Sprintf("s%d", i)))
	}
	d, err := s.Diagnose(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.Embeddings.Model != "" || d.Embeddings.Pending == 0 || d.IsDue(view.StepEmbed) {
		t.Fatalf("without an embedder: coverage %+v, due %v; want pending messages and embedding not due", d.Embeddings, d.Due)
	}
	if _, err := s.Upkeep(ctx, UpkeepOptions{Steps: []view.Step{view.StepEmbed}}); !errors.Is(err, ErrEmbeddingsOff) {
		t.Fatalf("embedding asked without an embedder: %v, want ErrEmbeddingsOff", err)
	}

	e := openEmbedder(t, "")
	s.UseEmbedder(e)
	if d, err = s.Diagnose(ctx, 0); err != nil || !d.IsDue(view.StepEmbed) || d.Embeddings.Model != e.Model() {
		t.Fatalf("with an embedder: %+v, %v; want embedding due", d, err)
	}
	pending := d.Embeddings.Pending
	rep, err := s.Upkeep(ctx, UpkeepOptions{EmbedLimit: 2, BatchRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Embed == nil || rep.Embed.Embedded != 2 || rep.After.Embeddings.Pending != pending-2 || !rep.After.IsDue(view.StepEmbed) {
		t.Fatalf("bounded round: %+v, after %+v; want 2 embedded and the rest still due", rep.Embed, rep.After.Embeddings)
	}
	for rep.After.IsDue(view.StepEmbed) {
		if rep, err = s.Upkeep(ctx, UpkeepOptions{EmbedLimit: 2, BatchRows: 2}); err != nil {
			t.Fatal(err)
		}
	}
	if c := rep.After.Embeddings; c.Pending != 0 || c.ThisModel != c.Searchable {
		t.Fatalf("after the rounds: %+v, want every searchable message embedded by the model", c)
	}
	before := readVectors(t, s)
	msgs := func(d *view.Diagnosis) view.TableState {
		return d.Tables[slices.IndexFunc(d.Tables, func(t view.TableState) bool { return t.Table == TableMessages })]
	}
	d, err = s.Diagnose(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	rep, err = s.Upkeep(ctx, UpkeepOptions{Steps: []view.Step{view.StepCompact}})
	if err != nil {
		t.Fatal(err)
	}
	if got, was := msgs(rep.After), msgs(d); got.Fragments >= was.Fragments || got.Rows != was.Rows {
		t.Errorf("messages %d rows in %d fragments -> %d in %d; want the same rows in fewer", was.Rows, was.Fragments, got.Rows, got.Fragments)
	}
	after := readVectors(t, s)
	for k, v := range before {
		if cosine(v.vec, after[k].vec) < 0.999999 || v.model != after[k].model {
			t.Errorf("%s: vector or model changed by compaction", k)
		}
	}
}

// A message whose text changes while its batch is being embedded keeps no stale vector: the
// commit leaves it out, and the next run embeds its new text.
func TestBackfillSkipsTextChangedMeanwhile(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	e := openEmbedder(t, "")
	sess := &session.Session{ID: "s", SourceAgent: "claude-code", Project: "/p", CreatedAt: base}
	msg := &session.Message{SessionID: "s", ID: "m", Role: session.RoleAssistant, Timestamp: base}
	upsert(t, s, []session.Event{{Session: sess}, {Message: msg},
		{Part: &session.Part{SessionID: "s", MessageID: "m", ID: "a", Type: session.PartText, Provenance: session.Conversational, Text: "looking at the flaky test"}}})
	// Hold runs between embedding and the commit: a sync adds a part to the message there.
	grow := func(ctx context.Context) (func(), error) {
		upsert(t, s, []session.Event{{Session: sess}, {Message: msg},
			{Part: &session.Part{SessionID: "s", MessageID: "m", ID: "b", Ordinal: 1, Type: session.PartText, Provenance: session.Conversational, Text: "the fix is a lock"}}})
		return func() {}, nil
	}
	rep, err := s.Backfill(ctx, e, BackfillOptions{Hold: grow})
	if err != nil || rep.Embedded != 0 || rep.Remaining != 1 {
		t.Fatalf("backfill racing a change: %+v, %v; want nothing written and the message still pending", rep, err)
	}
	if got := readVectors(t, s)["s/m"]; got.vec != nil {
		t.Fatal("a vector of the old text was stored")
	}
	if rep, err := s.Backfill(ctx, e, BackfillOptions{}); err != nil || rep.Embedded != 1 {
		t.Fatalf("next backfill %+v, %v; want the new text embedded", rep, err)
	}
	got := readVectors(t, s)["s/m"]
	want, err := e.Embed(ctx, []string{got.text}, embed.Passage)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.text, "the fix is a lock") || cosine(got.vec, want[0]) < 0.999 {
		t.Errorf("stored vector is not the new text's (text %q)", got.text)
	}
}

// Messages longer than the model's 512 tokens are embedded from their start, and counted.
func TestBackfillCountsTruncatedMessages(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	sess := &session.Session{ID: "s", SourceAgent: "claude-code", Project: "/p", CreatedAt: base}
	long := &session.Message{SessionID: "s", ID: "long", Role: session.RoleUser, Timestamp: base}
	short := &session.Message{SessionID: "s", ID: "short", Role: session.RoleUser, Timestamp: base.Add(time.Second)}
	upsert(t, s, []session.Event{{Session: sess}, {Message: long},
		{Part: &session.Part{SessionID: "s", MessageID: "long", ID: "p", Type: session.PartText, Provenance: session.Conversational, Text: strings.Repeat("the build failed again ", 400)}},
		{Message: short},
		{Part: &session.Part{SessionID: "s", MessageID: "short", ID: "p", Type: session.PartText, Provenance: session.Conversational, Text: "ok"}}})
	rep, err := s.Backfill(ctx, openEmbedder(t, ""), BackfillOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Embedded != 2 || rep.Truncated != 1 {
		t.Fatalf("report %+v, want 2 embedded and 1 truncated", rep)
	}
}
