package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/pondhq/pond/embed"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/lance"
	"github.com/pondhq/pond/store/sqlite"
)

// BackfillOptions tune Backfill.
type BackfillOptions struct {
	// Force also re-embeds messages that another model embedded (after a model change).
	Force bool
	// BatchRows is how many messages are embedded and committed at once (default 256): the
	// work an interruption can lose.
	BatchRows int
	// Progress, when set, is called after every committed batch.
	Progress func(BackfillProgress)
	// Limit, when positive, stops the backfill after the batch that reaches it: the rest stays
	// pending for the next run (the daemon embeds in bounded rounds).
	Limit int
	// Hold, when set, is held around every commit, so a caller can serialise the commits with
	// its other writes (the daemon's write slot). Embedding, the slow part, runs outside it.
	Hold Hold
}

// Hold takes a caller's write slot; the store calls release once its commit is done.
type Hold func(ctx context.Context) (release func(), err error)

// held runs f inside hold (when set).
func held(ctx context.Context, hold Hold, f func() error) error {
	if hold != nil {
		release, err := hold(ctx)
		if err != nil {
			return err
		}
		defer release()
	}
	return f()
}

// BackfillProgress is how far a backfill has come.
type BackfillProgress struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// searchable selects messages that have text to embed.
const searchable = "search_text IS NOT NULL AND search_text != ''"

// pendingFilter selects the messages a backfill for model still has to embed.
func pendingFilter(model string, force bool) string {
	if force {
		return searchable + " AND (vector IS NULL OR embedding_model IS NULL OR embedding_model != " + lance.Quote(model) + ")"
	}
	return searchable + " AND vector IS NULL"
}

// EmbedCounts counts searchable, embedded and model-embedded messages cheaply enough to ask
// often (status, the daemon's upkeep): the mirror keeps the searchable count, and Lance counts
// over embedding_model, a small column that is set exactly when vector is (filters on
// search_text or vector read gigabytes: 6 s at a million messages, against 0.1 s).
func (s *Store) EmbedCounts(ctx context.Context, model string) (view.EmbedCounts, error) {
	t := s.tables[TableMessages]
	var c view.EmbedCounts
	if err := s.mirror.DB().QueryRowContext(ctx, `SELECT coalesce(sum(n), 0) FROM _pond_search_scope`).Scan(&c.Searchable); err != nil {
		return c, fmt.Errorf("store: count searchable messages: %w", err)
	}
	var err error
	if c.Embedded, err = t.Count(ctx, "embedding_model IS NOT NULL"); err != nil {
		return c, err
	}
	if model != "" {
		if c.ThisModel, err = t.Count(ctx, "embedding_model = "+lance.Quote(model)); err != nil {
			return c, err
		}
	}
	c.Pending = max(c.Searchable-c.Embedded, 0)
	return c, nil
}

// Backfill embeds the search text of every message that has no vector yet (with Force, also
// those another model embedded), batch by batch. Each batch is read without the store lock,
// embedded, then written under it through a merge-insert on (session_id, id) that sets only
// vector and embedding_model; the mirror's embedding_model follows. A batch once committed
// stays: an interrupted backfill (ctx cancelled) resumes where it stopped, because the next run
// selects only what is still pending. Full-text search never waits for it: reads take no lock.
func (s *Store) Backfill(ctx context.Context, e embed.Embedder, opts BackfillOptions) (view.BackfillReport, error) {
	start := time.Now()
	rep := view.BackfillReport{Model: e.Model()}
	if e.Dimensions() != VectorDim {
		return rep, fmt.Errorf("store: model %s gives %d-dimensional vectors; messages.vector holds %d", e.Model(), e.Dimensions(), VectorDim)
	}
	if opts.BatchRows <= 0 {
		opts.BatchRows = 256
	}
	t := s.tables[TableMessages]
	filter := pendingFilter(e.Model(), opts.Force)
	total, err := t.Count(ctx, filter)
	if err != nil {
		return rep, err
	}
	for {
		keys, texts, err := s.pendingBatch(ctx, filter, opts.BatchRows)
		if err != nil {
			return s.finishBackfill(ctx, rep, start, filter, err)
		}
		if len(keys) == 0 {
			break
		}
		vecs, cut, err := embedTexts(ctx, e, texts)
		if err != nil {
			return s.finishBackfill(ctx, rep, start, filter, fmt.Errorf("store: embed %d messages: %w", len(texts), err))
		}
		var wrote int
		err = held(ctx, opts.Hold, func() (err error) {
			wrote, err = s.writeVectors(ctx, keys, texts, vecs, e.Model())
			return err
		})
		if err != nil {
			return s.finishBackfill(ctx, rep, start, filter, err)
		}
		if wrote == 0 {
			break // every text changed while it was embedded: the next run takes them up
		}
		rep.Embedded += wrote
		rep.Truncated += cut
		rep.Batches++
		if opts.Progress != nil {
			opts.Progress(BackfillProgress{Done: rep.Embedded, Total: int(total)})
		}
		if opts.Limit > 0 && rep.Embedded >= opts.Limit {
			break
		}
	}
	return s.finishBackfill(ctx, rep, start, filter, nil)
}

// finishBackfill fills in the time taken and what remains to embed, and passes err on.
func (s *Store) finishBackfill(ctx context.Context, rep view.BackfillReport, start time.Time, filter string, err error) (view.BackfillReport, error) {
	rep.Elapsed = time.Since(start)
	// Counted with a fresh context: after an interruption the caller still wants to know.
	if n, cerr := s.tables[TableMessages].Count(context.WithoutCancel(ctx), filter); cerr == nil {
		rep.Remaining = n
	}
	return rep, err
}

// truncationReporter is an embedder that says which inputs it cut at its token limit.
type truncationReporter interface {
	EmbedTruncated(ctx context.Context, texts []string, kind embed.Kind) ([][]float32, []bool, error)
}

// embedTexts embeds passages and counts those cut at the model's token limit (when the
// embedder reports it).
func embedTexts(ctx context.Context, e embed.Embedder, texts []string) ([][]float32, int, error) {
	tr, ok := e.(truncationReporter)
	if !ok {
		vecs, err := e.Embed(ctx, texts, embed.Passage)
		return vecs, 0, err
	}
	vecs, truncated, err := tr.EmbedTruncated(ctx, texts, embed.Passage)
	n := 0
	for _, t := range truncated {
		if t {
			n++
		}
	}
	return vecs, n, err
}

type messageKey struct{ session, id string }

// pendingBatch reads up to n pending messages' keys and search text.
func (s *Store) pendingBatch(ctx context.Context, filter string, n int) ([]messageKey, []string, error) {
	var keys []messageKey
	var texts []string
	q := lance.Query{Columns: []string{"session_id", "id", "search_text"}, Filter: filter, Limit: n, BatchRows: n}
	err := s.tables[TableMessages].Scan(ctx, q, func(r arrow.Record) error {
		sess := r.Column(0).(*array.String)
		ids := r.Column(1).(*array.String)
		text := r.Column(2).(*array.String)
		for i := 0; i < int(r.NumRows()); i++ {
			keys = append(keys, messageKey{sess.Value(i), ids.Value(i)})
			texts = append(texts, text.Value(i))
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("store: read messages to embed: %w", err)
	}
	return keys, texts, nil
}

// vectorSchema is the slice of the messages table a backfill writes.
var vectorSchema = arrow.NewSchema([]arrow.Field{
	messagesSchema.Field(messagesSchema.FieldIndices("session_id")[0]),
	messagesSchema.Field(messagesSchema.FieldIndices("id")[0]),
	messagesSchema.Field(messagesSchema.FieldIndices("vector")[0]),
	messagesSchema.Field(messagesSchema.FieldIndices("embedding_model")[0]),
}, nil)

// writeVectors commits one batch of vectors to Lance and the mirror, under the store lock.
// texts are what was embedded: a message whose text changed meanwhile (a sync added parts to
// it, which clears its vector) is left for the next run rather than given a stale vector.
func (s *Store) writeVectors(ctx context.Context, keys []messageKey, texts []string, vecs [][]float32, model string) (int, error) {
	lock, err := AcquireLock(ctx, s.opts.StateDir, s.opts.Command, func(h Holder) {
		s.log.Info("store: backfill waiting for the store lock", "holder", h.String())
	})
	if err != nil {
		return 0, err
	}
	defer lock.Release()
	if keys, vecs, err = s.dropChanged(ctx, keys, texts, vecs); err != nil || len(keys) == 0 {
		return 0, err
	}
	rb := array.NewRecordBuilder(memory.DefaultAllocator, vectorSchema)
	defer rb.Release()
	list := rb.Field(2).(*array.FixedSizeListBuilder)
	vals := list.ValueBuilder().(*array.Float32Builder)
	for i, k := range keys {
		appendStr(rb.Field(0), k.session)
		appendStr(rb.Field(1), k.id)
		if len(vecs[i]) != VectorDim {
			return 0, fmt.Errorf("store: vector for %s/%s has %d dimensions, want %d", k.session, k.id, len(vecs[i]), VectorDim)
		}
		list.Append(true)
		vals.AppendValues(vecs[i], nil)
		appendStr(rb.Field(3), model)
	}
	rec := rb.NewRecord()
	defer rec.Release()
	spec := lance.MergeSpec{On: []string{"session_id", "id"}, UpdateMatched: true}
	if _, err := s.tables[TableMessages].MergeInsert(ctx, spec, rec); err != nil {
		return 0, fmt.Errorf("store: write %d vectors: %w", len(keys), err)
	}
	return len(keys), s.setMirrorEmbeddingModel(ctx, keys, model)
}

// dropChanged keeps the keys whose search text is still the text embedded, reading the
// mirror (which the store lock, held by the caller, keeps in step with Lance). A message the
// mirror lacks (a crash left it behind; the next write catches up) is kept.
func (s *Store) dropChanged(ctx context.Context, keys []messageKey, texts []string, vecs [][]float32) ([]messageKey, [][]float32, error) {
	stmt, err := s.mirror.DB().PrepareContext(ctx, `SELECT coalesce(search_text, '') FROM messages WHERE session_id = ? AND message_id = ?`)
	if err != nil {
		return nil, nil, fmt.Errorf("store: mirror: %w", err)
	}
	defer stmt.Close()
	var keptKeys []messageKey
	var keptVecs [][]float32
	for i, k := range keys {
		var now string
		err := stmt.QueryRowContext(ctx, k.session, k.id).Scan(&now)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, nil, fmt.Errorf("store: mirror: %w", err)
		}
		if err != nil || now == texts[i] {
			keptKeys = append(keptKeys, k)
			keptVecs = append(keptVecs, vecs[i])
		}
	}
	return keptKeys, keptVecs, nil
}

// setMirrorEmbeddingModel records in the mirror which model embedded keys.
func (s *Store) setMirrorEmbeddingModel(ctx context.Context, keys []messageKey, model string) error {
	mk := make([]sqlite.MessageKey, len(keys))
	for i, k := range keys {
		mk[i] = sqlite.MessageKey{SessionID: k.session, MessageID: k.id}
	}
	if err := s.mirror.SetEmbeddingModel(ctx, model, mk); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// Vector is one message's embedding as the archive holds it, with the text it was made from,
// so that another archive (pond copy's destination) can take it without a model.
type Vector struct {
	SessionID, MessageID string
	Text, Model          string
	Values               []float32
}

// ReadVectors calls f with the embedded messages of sessions ids, a Lance batch at a time.
func (s *Store) ReadVectors(ctx context.Context, ids []string, f func([]Vector) error) error {
	for _, chunk := range chunkIDs(ids, 200) {
		q := lance.Query{Columns: []string{"session_id", "id", "search_text", "vector", "embedding_model"},
			Filter: inFilter("session_id", chunk) + " AND embedding_model IS NOT NULL", BatchRows: 2048}
		err := s.tables[TableMessages].Scan(ctx, q, func(r arrow.Record) error {
			sess, ids := r.Column(0).(*array.String), r.Column(1).(*array.String)
			text, model := r.Column(2).(*array.String), r.Column(4).(*array.String)
			list := r.Column(3).(*array.FixedSizeList)
			vals := list.ListValues().(*array.Float32).Float32Values()
			out := make([]Vector, 0, r.NumRows())
			for i := range int(r.NumRows()) {
				if list.IsNull(i) {
					continue
				}
				lo, hi := list.ValueOffsets(i)
				out = append(out, Vector{SessionID: sess.Value(i), MessageID: ids.Value(i), Text: text.Value(i), Model: model.Value(i),
					Values: slices.Clone(vals[lo:hi])})
			}
			return f(out)
		})
		if err != nil {
			return fmt.Errorf("store: read vectors: %w", err)
		}
	}
	return nil
}

// PutVectors gives messages the vectors another archive made for them, where the message's
// text here is still the text embedded (else the backfill embeds it anew), and returns how
// many it wrote.
func (s *Store) PutVectors(ctx context.Context, vecs []Vector) (int, error) {
	byModel := map[string][]Vector{}
	for _, v := range vecs {
		byModel[v.Model] = append(byModel[v.Model], v)
	}
	wrote := 0
	for _, model := range slices.Sorted(maps.Keys(byModel)) {
		group := byModel[model]
		keys := make([]messageKey, len(group))
		texts := make([]string, len(group))
		values := make([][]float32, len(group))
		for i, v := range group {
			keys[i], texts[i], values[i] = messageKey{v.SessionID, v.MessageID}, v.Text, v.Values
		}
		n, err := s.writeVectors(ctx, keys, texts, values, model)
		wrote += n
		if err != nil {
			return wrote, err
		}
	}
	return wrote, nil
}
