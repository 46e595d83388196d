package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/daemon/capture"
	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/store"
)

// SyncRequest is what `pond sync` asks for.
type SyncRequest struct {
	Adapter, Path          string
	DryRun, Verify, NoWait bool
	Progress               func(capture.Progress)
}

// errBusy is returned by Sync with NoWait when another writer holds the store.
var errBusy = errors.New("another writer holds the store")

// writer carries out the commands that change Pond's state: capture and config edits. Without
// a daemon it is this process, writing under the store lock (localWriter); with one, the same
// requests go to the daemon, the only writer while it runs (daemonWriter). Commands get their
// writer from writerFor and nothing else, so that switch is made in this one place.
type writer interface {
	// Sync captures; notify receives remarks for the user (stderr).
	Sync(ctx context.Context, req SyncRequest, notify func(string)) (*capture.Report, error)
	// SetAdapters enables, disables or discovers adapters.
	SetAdapters(ctx context.Context, req *apitype.AdapterRequest) (*apitype.AdaptersResponse, error)
	// SetModel turns semantic search on with an installed model, or off.
	SetModel(ctx context.Context, req *apitype.ModelRequest) (*apitype.ModelStatus, error)
	// SetConsent records the capture consent.
	SetConsent(ctx context.Context, c config.Consent) (*apitype.Consent, error)
	// Optimize diagnoses the archive's upkeep and runs what req asks; progress (may be nil)
	// follows the upkeep's events, notify receives remarks for the user (stderr).
	Optimize(ctx context.Context, req *apitype.OptimizeRequest, progress func(apitype.Event), notify func(string)) (*apitype.OptimizeResponse, error)
	// RebuildMirror recreates the SQLite mirror from the Lance tables.
	RebuildMirror(ctx context.Context) (*apitype.MirrorRebuild, error)
}

func writerFor(ctx context.Context) writer {
	if c := daemonClient(ctx); c != nil {
		return daemonWriter{c}
	}
	return localWriter{}
}

// daemonClient is a client of the running daemon, or nil when none answers.
func daemonClient(ctx context.Context) *ipc.Client {
	d, err := resolveDirs()
	if err != nil {
		return nil
	}
	c, err := ipc.Connect(ctx, ipc.APISocket(d.Runtime.Path))
	if err != nil {
		return nil
	}
	return c
}

// localService is the daemon's Service run in this process, over st (nil for config edits).
func localService(st *store.Store) (*daemon.Service, error) {
	d, err := resolveDirs()
	if err != nil {
		return nil, err
	}
	return &daemon.Service{Dirs: d, Store: st, Env: capture.Env(), Version: version, Log: logger()}, nil
}

// cliError turns the API's coded errors into the CLI's exit codes: usage errors exit 2.
func cliError(err error) error {
	var ae *apitype.Error
	if !errors.As(err, &ae) {
		return err
	}
	switch ae.Code {
	case apitype.CodeValidation, apitype.CodeUnknownAdapter, apitype.CodeRefused:
		return &exitError{code: 2, err: errors.New(ae.Message)}
	}
	return &exitError{code: 1, err: errors.New(ae.Message)}
}

func syncRequest(req SyncRequest) (*apitype.SyncRequest, error) {
	out := &apitype.SyncRequest{Adapter: req.Adapter, DryRun: req.DryRun, Verify: req.Verify, NoWait: req.NoWait}
	if req.Path != "" {
		abs, err := filepath.Abs(req.Path)
		if err != nil {
			return nil, err
		}
		out.Path = abs
	}
	return out, nil
}

func reportOf(resp *apitype.SyncResponse, notify func(string)) (*capture.Report, error) {
	for _, r := range resp.Remarks {
		notify(r)
	}
	var rep capture.Report
	if err := json.Unmarshal(resp.Report, &rep); err != nil {
		return nil, fmt.Errorf("sync report: %w", err)
	}
	return &rep, nil
}

// localWriter writes from this process.
type localWriter struct{}

func (localWriter) SetAdapters(ctx context.Context, req *apitype.AdapterRequest) (*apitype.AdaptersResponse, error) {
	svc, err := localService(nil)
	if err != nil {
		return nil, err
	}
	resp, err := svc.SetAdapters(ctx, req)
	return resp, cliError(err)
}

func (localWriter) SetConsent(ctx context.Context, c config.Consent) (*apitype.Consent, error) {
	svc, err := localService(nil)
	if err != nil {
		return nil, err
	}
	resp, err := svc.SetConsent(ctx, &apitype.Consent{Capture: string(c)})
	return resp, cliError(err)
}

func (localWriter) RebuildMirror(ctx context.Context) (*apitype.MirrorRebuild, error) {
	s, err := openStore(ctx, "pond mirror rebuild")
	if err != nil {
		return nil, err
	}
	defer s.Close()
	svc, err := localService(s)
	if err != nil {
		return nil, err
	}
	return svc.RebuildMirror(ctx, &apitype.MirrorRebuildRequest{})
}

func (localWriter) SetModel(ctx context.Context, req *apitype.ModelRequest) (*apitype.ModelStatus, error) {
	svc, err := localService(nil)
	if err != nil {
		return nil, err
	}
	resp, err := svc.SetModel(ctx, req)
	return resp, cliError(err)
}

func (localWriter) Sync(ctx context.Context, req SyncRequest, notify func(string)) (*capture.Report, error) {
	d, err := resolveDirs()
	if err != nil {
		return nil, err
	}
	areq, err := syncRequest(req)
	if err != nil {
		return nil, err
	}
	if req.NoWait {
		l, err := store.TryLock(d.State.Path, "pond sync")
		var le *store.LockedError
		if errors.As(err, &le) {
			notify(fmt.Sprintf("another writer holds the store: %s; not waiting", le.Holder))
			return nil, errBusy
		}
		if err != nil {
			return nil, err
		}
		l.Release()
	}
	s, err := openStore(ctx, "pond sync")
	if err != nil {
		return nil, err
	}
	defer s.Close()
	svc, err := localService(s)
	if err != nil {
		return nil, err
	}
	defer svc.Close()
	svc.Progress = req.Progress
	resp, err := svc.Sync(ctx, areq)
	if err != nil {
		return nil, cliError(err)
	}
	return reportOf(resp, notify)
}

func (localWriter) Optimize(ctx context.Context, req *apitype.OptimizeRequest, progress func(apitype.Event), notify func(string)) (*apitype.OptimizeResponse, error) {
	s, err := openStore(ctx, "pond optimize")
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if err := useConfiguredEmbedder(s); err != nil {
		if req.ForceEmbed || slices.Contains(req.Steps, string(store.StepEmbed)) {
			return nil, err
		}
		notify(err.Error() + "; going on without embedding")
	}
	svc, err := localService(s)
	if err != nil {
		return nil, err
	}
	defer svc.Close()
	if progress != nil {
		svc.Hub = ipc.NewHub(16)
		_, events, cancel := svc.Hub.Subscribe("")
		done := make(chan struct{})
		go func() {
			defer close(done)
			for ev := range events {
				progress(ev)
			}
		}()
		defer func() { cancel(); <-done }()
	}
	resp, err := svc.Optimize(ctx, req)
	return resp, cliError(err)
}

// daemonWriter sends the writes to the running daemon.
type daemonWriter struct{ c *ipc.Client }

func (w daemonWriter) SetAdapters(ctx context.Context, req *apitype.AdapterRequest) (*apitype.AdaptersResponse, error) {
	resp, err := w.c.SetAdapters(ctx, req)
	return resp, cliError(err)
}

func (w daemonWriter) SetConsent(ctx context.Context, c config.Consent) (*apitype.Consent, error) {
	resp, err := w.c.SetConsent(ctx, &apitype.Consent{Capture: string(c)})
	return resp, cliError(err)
}

// RebuildMirror has the daemon rebuild: it holds the mirror open, and a file replaced under it
// would leave its writer and readers on the old one.
func (w daemonWriter) RebuildMirror(ctx context.Context) (*apitype.MirrorRebuild, error) {
	resp, err := w.c.RebuildMirror(ctx, &apitype.MirrorRebuildRequest{})
	return resp, cliError(err)
}

func (w daemonWriter) SetModel(ctx context.Context, req *apitype.ModelRequest) (*apitype.ModelStatus, error) {
	resp, err := w.c.SetModel(ctx, req)
	return resp, cliError(err)
}

func (w daemonWriter) Sync(ctx context.Context, req SyncRequest, notify func(string)) (*capture.Report, error) {
	areq, err := syncRequest(req)
	if err != nil {
		return nil, err
	}
	resp, err := w.c.Sync(ctx, areq)
	var ae *apitype.Error
	if errors.As(err, &ae) && ae.Code == apitype.CodeSyncRunning {
		notify("the daemon is syncing already; not waiting")
		return nil, errBusy
	}
	if err != nil {
		return nil, cliError(err)
	}
	return reportOf(resp, notify)
}

func (w daemonWriter) Optimize(ctx context.Context, req *apitype.OptimizeRequest, progress func(apitype.Event), notify func(string)) (*apitype.OptimizeResponse, error) {
	if progress != nil {
		// Follow the daemon's events from before the request, so no progress is missed.
		wctx, cancel := context.WithCancel(ctx)
		ready, done := make(chan struct{}), make(chan struct{})
		var once sync.Once
		go func() {
			defer close(done)
			defer once.Do(func() { close(ready) }) // no stream: go on without progress
			w.c.Watch(wctx, "", func(ev apitype.Event) error {
				if ev.Type == apitype.EventHello {
					once.Do(func() { close(ready) })
					return nil
				}
				progress(ev)
				return nil
			})
		}()
		<-ready
		defer func() { cancel(); <-done }()
	}
	resp, err := w.c.Optimize(ctx, req)
	return resp, cliError(err)
}
