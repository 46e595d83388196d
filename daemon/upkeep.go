package daemon

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store"
)

// upkeepState is the service's side of upkeep: one run at a time, whether rows came in since
// the last, and the last run's outcome for Status.
type upkeepState struct {
	run     slot
	changed atomic.Bool // rows were added since the last automatic run looked
	later   atomic.Bool // the last run left work that becomes due with time (versions to age)
	// rewrote is when the latest run that rewrote table data or indexes, and left the
	// versions it replaced on disk, finished (Unix nanoseconds; 0: none has): those versions
	// are as large as what it wrote, so the daemon prunes them once they are old
	// (daemon.upkeepLoop), not at its next tick.
	rewrote atomic.Int64
	// rewroteNow, when set, hears that rewrote changed.
	rewroteNow chan struct{}

	mu   sync.Mutex
	last *view.Upkeep
}

func (s *Service) lastUpkeep() *view.Upkeep {
	s.upkeep.mu.Lock()
	defer s.upkeep.mu.Unlock()
	return s.upkeep.last
}

// errEmbeddingsOff refuses embedding while semantic search is off.
var errEmbeddingsOff = &apitype.Error{Code: apitype.CodeEmbeddingsOff,
	Message: view.MsgEmbeddingsOff}

// embedRound bounds the messages an automatic upkeep embeds before it compacts, indexes and
// prunes what the embedding left, and starts over.
const embedRound = 1024

// Optimize is the archive's upkeep on request (POST /v1/optimize, pond optimize): the
// diagnosis and, unless a dry run, the steps asked for or the due ones. It waits for an upkeep
// already under way (the daemon's own) to finish. Each commit takes the write slot, like a
// sync, but embedding runs outside it, so captures go on while the archive is embedded.
func (s *Service) Optimize(ctx context.Context, req *apitype.OptimizeRequest) (*apitype.OptimizeResponse, error) {
	if err := s.needStore(); err != nil {
		return nil, err
	}
	opts := store.UpkeepOptions{ForceEmbed: req.ForceEmbed, BatchRows: req.BatchRows}
	for _, name := range req.Steps {
		st, err := view.ParseStep(name)
		if err != nil {
			return nil, &apitype.Error{Code: apitype.CodeValidation, Message: err.Error()}
		}
		opts.Steps = append(opts.Steps, st)
	}
	if req.ForceEmbed && !slices.Contains(opts.Steps, view.StepEmbed) {
		opts.Steps = append(opts.Steps, view.StepEmbed)
	}
	if req.BatchRows < 0 {
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: "batch_rows must be 0 (the default, 256) or more"}
	}
	if k := req.KeepVersionsSecs; k != nil {
		if *k < 0 {
			return nil, &apitype.Error{Code: apitype.CodeValidation, Message: "keep_versions_secs must be 0 or more"}
		}
		opts.KeepVersions = time.Duration(*k) * time.Second
		if *k == 0 {
			opts.KeepVersions = -1 // the store's "keep no replaced version"
		}
	}
	if slices.Contains(opts.Steps, view.StepEmbed) && s.Store.Embedder() == nil {
		return nil, errEmbeddingsOff
	}
	resp := &apitype.OptimizeResponse{}
	if req.DryRun {
		d, err := s.Store.Diagnose(ctx, opts.KeepVersions)
		if err != nil {
			return nil, err
		}
		resp.Diagnosis = d
		return resp, nil
	}
	if _, err := s.upkeep.run.take(ctx, false); err != nil {
		return nil, err
	}
	defer s.upkeep.run.release()
	rep, err := s.runUpkeep(ctx, "request", opts)
	if err != nil {
		return nil, err
	}
	resp.Diagnosis, resp.Report = rep.Before, rep
	return resp, nil
}

// AutoUpkeep is the daemon's upkeep between captures: when rows came in since it last looked,
// or the last run left old versions to prune once they age, it measures and runs what is due,
// embedding at most a round of messages. It skips while a requested upkeep runs, and reports
// whether embedding is left over that it should go on with straight away.
func (s *Service) AutoUpkeep(ctx context.Context, keep time.Duration) (again bool) {
	if s.Store == nil || !s.upkeep.changed.Swap(false) && !s.upkeep.later.Load() {
		return false
	}
	if ok, _ := s.upkeep.run.take(ctx, true); !ok {
		s.upkeep.changed.Store(true) // look again next time
		return false
	}
	defer s.upkeep.run.release()
	d, err := s.Store.Diagnose(ctx, keep)
	if err != nil {
		s.log().Error("daemon: upkeep: diagnose", "error", err)
		s.upkeep.later.Store(true)
		return false
	}
	if len(d.Due) == 0 {
		s.upkeep.later.Store(agingVersions(d))
		s.log().Debug("daemon: upkeep: nothing due", "look_again", s.upkeep.later.Load())
		return false
	}
	rep, err := s.runUpkeep(ctx, "auto", store.UpkeepOptions{Diagnosis: d, KeepVersions: keep, EmbedLimit: embedRound})
	if err != nil || rep.After == nil {
		s.upkeep.later.Store(true)
		return false
	}
	s.upkeep.later.Store(len(rep.After.Due) > 0 || agingVersions(rep.After) || rep.Rewrote())
	return rep.After.IsDue(view.StepEmbed) && rep.Embed != nil && rep.Embed.Embedded > 0
}

// replacedLeft reports whether a table keeps a replaced version, old or not.
func replacedLeft(d *view.Diagnosis) bool {
	return slices.ContainsFunc(d.Tables, func(t view.TableState) bool { return t.Versions > 1 })
}

// agingVersions reports whether a table keeps replaced versions not yet old enough to prune.
func agingVersions(d *view.Diagnosis) bool {
	return slices.ContainsFunc(d.Tables, func(t view.TableState) bool { return t.Versions-1 > t.OldVersions })
}

// runUpkeep runs store.Upkeep with the service's write slot around each commit, tells the
// watchers as it goes, logs and records the outcome. The caller holds the upkeep slot.
func (s *Service) runUpkeep(ctx context.Context, trigger string, opts store.UpkeepOptions) (*view.UpkeepReport, error) {
	start := time.Now().UTC()
	steps := opts.Steps
	if len(steps) == 0 && opts.Diagnosis != nil {
		for _, d := range opts.Diagnosis.Due {
			steps = append(steps, d.Step)
		}
	}
	s.publish(apitype.EventUpkeepStarted, view.UpkeepStarted{Trigger: trigger, Steps: steps})
	opts.Hold = func(ctx context.Context) (func(), error) {
		if err := s.acquireWrite(ctx, false); err != nil {
			return nil, err
		}
		return s.releaseWrite, nil
	}
	opts.Progress = func(p view.UpkeepProgress) { s.publish(apitype.EventUpkeepProgress, p) }
	rep, err := s.Store.Upkeep(ctx, opts)
	out := &view.Upkeep{Trigger: trigger, StartedAt: start, DurationSecs: time.Since(start).Seconds(), Did: rep.Summary()}
	if rep.After != nil {
		for _, d := range rep.After.Due {
			out.Due = append(out.Due, fmt.Sprintf("%s: %s", d.Step, d.Why))
		}
	}
	switch {
	case errors.Is(err, store.ErrEmbeddingsOff):
		err = errEmbeddingsOff
		fallthrough
	case err != nil && ctx.Err() != nil:
		out.Error = "stopped: " + err.Error()
		s.log().Info("daemon: upkeep stopped", "trigger", trigger, "did", out.Did, "error", err)
	case err != nil:
		out.Error = err.Error()
		s.log().Error("daemon: upkeep failed", "trigger", trigger, "did", out.Did, "error", err)
	default:
		s.log().Info("daemon: upkeep", "trigger", trigger, "did", out.Did, "still_due", out.Due, "took", time.Since(start).Round(time.Millisecond))
	}
	if rep.Rewrote() && (rep.After == nil || replacedLeft(rep.After)) {
		// What the run replaced is still on disk (a run without prune, or versions kept for
		// a while): prune it as soon as it is old. A run whose own prune removed it leaves
		// the daemon idle, so the code pages upkeep gave back stay given back.
		s.upkeep.later.Store(true)
		s.upkeep.rewrote.Store(time.Now().UnixNano())
		select {
		case s.upkeep.rewroteNow <- struct{}{}:
		default: // already told, or nobody listens
		}
	}
	s.upkeep.mu.Lock()
	s.upkeep.last = out
	s.upkeep.mu.Unlock()
	s.publish(apitype.EventUpkeepFinished, out)
	return rep, err
}
