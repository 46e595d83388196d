// Package transfer copies archives: store to store as an incremental union (pond copy), the
// key-by-key verification that follows every copy, `.pond` archive files (archive.go) and the
// endpoints the CLI names (endpoint.go). It goes through store.Store's API only (ReadTranscript
// at the source, Upsert at the destination), so the destination's mirror, search text,
// redaction and erase denylist apply to copied rows as to captured ones.
package transfer

import (
	"context"
	"fmt"
	"time"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store"
)

// Options tune a copy.
type Options struct {
	// PondVersion is recorded on rows that carry no ingest record of their own.
	PondVersion string
	// BatchEvents is about how many events go to the destination per write (0: 50,000); a
	// write is cut only between sessions. Fewer, larger writes mean fewer Lance commits.
	BatchEvents int
	// Progress, when set, is told after every session copied and as each phase starts.
	Progress func(view.CopyProgress)
	// KeepVersions is what the destination's upkeep keeps of replaced table versions (0: the
	// store's default; negative: none, for a .pond file nobody else reads).
	KeepVersions time.Duration
}

// readBatch is how many source sessions are read together (one Lance scan for their file
// payloads).
const readBatch = 64

// need is what one source session lacks at the destination.
type need struct {
	session  bool
	messages map[string]bool // message ids
	parts    map[string]bool // message id + KeySep + part id
}

// Copy adds to dst every row of src it lacks: sessions absent at dst are appended whole, and a
// session dst holds gets only its missing messages and parts; the copied messages keep their
// vectors. Sessions erased at src are not copied, and go on dst's erase denylist where dst
// does not hold them (so no machine writing dst captures them again). Nothing is written to src, and
// nothing dst holds is changed or duplicated. Then the destination's indexes are brought up to
// date (store.Upkeep: fold and build, compact, prune) and the copy is verified key by key.
func Copy(ctx context.Context, src, dst *store.Store, opts Options) (*view.CopyReport, error) {
	start := time.Now()
	rep := &view.CopyReport{Upkeep: []view.Step{}}
	progress := func(p view.CopyProgress) {
		if opts.Progress != nil {
			opts.Progress(p)
		}
	}
	progress(view.CopyProgress{Phase: "plan"})
	ids, needs, err := plan(ctx, src, dst)
	if err != nil {
		return nil, err
	}
	// Sessions erased at the source stay behind, even where an unfinished erase left rows of
	// them there; the destination learns of the erasures instead.
	denied, err := src.Denied()
	if err != nil {
		return nil, err
	}
	var todo []string
	for _, id := range ids {
		n := needs[id]
		switch _, erased := denied[id]; {
		case erased:
			rep.ErasedAtSource++
		case n == nil:
			rep.Unchanged++
		case n.session:
			rep.Appended++
			todo = append(todo, id)
		default:
			rep.Grown++
			todo = append(todo, id)
		}
	}
	batch := opts.BatchEvents
	if batch <= 0 {
		batch = 50_000
	}
	stamp := store.Stamp{Adapter: "copy", PondVersion: opts.PondVersion, KeepIngest: true}
	var pending []session.Event
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		out, err := dst.Upsert(ctx, pending, stamp)
		if err != nil {
			return err
		}
		rep.Inserted.Add(out.Inserted)
		rep.Erased.Add(out.Erased)
		rep.Rejected.Add(out.Rejected)
		for _, r := range out.Rows {
			if r.Error != "" && len(rep.Errors) < 20 {
				rep.Errors = append(rep.Errors, r.Error)
			}
		}
		pending = pending[:0]
		return nil
	}
	progress(view.CopyProgress{Phase: "copy", Total: len(todo)})
	done := 0
	for lo := 0; lo < len(todo); lo += readBatch {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		ids := todo[lo:min(lo+readBatch, len(todo))]
		err := src.ReadTranscripts(ctx, ids, func(t *store.Transcript) error {
			pending = append(pending, missing(t, needs[t.Session.ID])...)
			if len(pending) >= batch {
				if err := flush(); err != nil {
					return err
				}
			}
			done++
			progress(view.CopyProgress{Phase: "copy", Done: done, Total: len(todo), Messages: rep.Inserted.Messages})
			return nil
		})
		if err != nil {
			return rep, err
		}
	}
	if err := flush(); err != nil {
		return rep, err
	}
	progress(view.CopyProgress{Phase: "copy", Done: len(todo), Total: len(todo), Messages: rep.Inserted.Messages})

	progress(view.CopyProgress{Phase: "vectors"})
	if rep.Vectors, err = copyVectors(ctx, src, dst, todo, needs); err != nil {
		return rep, err
	}
	added, held, err := dst.DenyAbsent(ctx, denied)
	if err != nil {
		return rep, fmt.Errorf("transfer: carry the source's erasures: %w", err)
	}
	rep.ErasuresCarried, rep.ErasedHeld = len(added), held

	progress(view.CopyProgress{Phase: "upkeep"})
	if rep.Upkeep, err = upkeep(ctx, dst, opts.KeepVersions); err != nil {
		return rep, fmt.Errorf("transfer: upkeep of the destination: %w", err)
	}
	progress(view.CopyProgress{Phase: "verify"})
	if rep.Verification, err = Verify(ctx, src, dst); err != nil {
		return rep, err
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// plan lists src's sessions (oldest first) and what each lacks at dst, from both mirrors (what
// Upsert itself trusts); sessions lacking nothing have no entry.
func plan(ctx context.Context, src, dst *store.Store) ([]string, map[string]*need, error) {
	ids, err := src.SessionIDs(ctx)
	if err != nil {
		return nil, nil, err
	}
	needs := map[string]*need{}
	get := func(id string) *need {
		n := needs[id]
		if n == nil {
			n = &need{messages: map[string]bool{}, parts: map[string]bool{}}
			needs[id] = n
		}
		return n
	}
	for _, table := range store.TableNames() {
		have, err := dst.MirrorKeys(ctx, table)
		if err != nil {
			return nil, nil, err
		}
		keys, err := src.MirrorKeys(ctx, table)
		if err != nil {
			return nil, nil, err
		}
		for k := range keys {
			if have[k] {
				continue
			}
			id, rest := splitKey(k)
			switch table {
			case store.TableSessions:
				get(id).session = true
			case store.TableMessages:
				get(id).messages[rest] = true
			case store.TableParts:
				get(id).parts[rest] = true
			}
		}
	}
	return ids, needs, nil
}

func splitKey(k string) (id, rest string) {
	id = store.SessionOfKey(k)
	if len(k) > len(id) {
		rest = k[len(id)+len(store.KeySep):]
	}
	return id, rest
}

// missing is the events of t that n lacks, in stream order. The session event always leads (a
// stored session's row tells Upsert the labels its new messages carry), and a message leads
// any of its parts that are missing.
func missing(t *store.Transcript, n *need) []session.Event {
	out := []session.Event{{Session: &t.Session}}
	for i := range t.Messages {
		m := &t.Messages[i]
		parts := t.Parts[m.ID]
		var want []session.Event
		for j := range parts {
			if n.session || n.parts[m.ID+store.KeySep+parts[j].ID] {
				want = append(want, session.Event{Part: &parts[j]})
			}
		}
		if n.session || n.messages[m.ID] || len(want) > 0 {
			out = append(out, session.Event{Message: m})
			out = append(out, want...)
		}
	}
	return out
}

// vectorBatch is how many vectors go to the destination per commit.
const vectorBatch = 4096

// copyVectors gives the messages just copied the vectors the source holds for them, so the
// destination searches them by meaning without embedding them again (a message whose text the
// destination changed, by redaction, is left to its backfill).
func copyVectors(ctx context.Context, src, dst *store.Store, ids []string, needs map[string]*need) (int, error) {
	var pending []store.Vector
	wrote := 0
	flush := func() error {
		n, err := dst.PutVectors(ctx, pending)
		wrote += n
		pending = pending[:0]
		return err
	}
	err := src.ReadVectors(ctx, ids, func(vs []store.Vector) error {
		for _, v := range vs {
			if n := needs[v.SessionID]; n != nil && (n.session || n.messages[v.MessageID]) {
				pending = append(pending, v)
			}
		}
		if len(pending) >= vectorBatch {
			return flush()
		}
		return nil
	})
	if err == nil && len(pending) > 0 {
		err = flush()
	}
	if err != nil {
		return wrote, fmt.Errorf("transfer: copy vectors: %w", err)
	}
	return wrote, nil
}

// upkeep runs at dst the upkeep that is due but embedding (a copy brings no model; the daemon
// or pond optimize embeds what came without a vector later): fold new rows into the indexes or build
// them, compact the commits the copy made, prune replaced versions.
func upkeep(ctx context.Context, dst *store.Store, keep time.Duration) ([]view.Step, error) {
	d, err := dst.Diagnose(ctx, keep)
	if err != nil {
		return nil, err
	}
	steps := []view.Step{}
	for _, due := range d.Due {
		if due.Step != view.StepEmbed {
			steps = append(steps, due.Step)
		}
	}
	if len(steps) == 0 {
		return steps, nil
	}
	_, err = dst.Upkeep(ctx, store.UpkeepOptions{Steps: steps, KeepVersions: keep, Diagnosis: d})
	return steps, err
}
