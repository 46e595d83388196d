package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pondhq/pond/daemon/capture"
	"github.com/pondhq/pond/daemon/config"
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
// requests go to the daemon, the only writer while it runs. Commands get their writer from
// writerFor and nothing else, so that switch is made in this one place.
type writer interface {
	// Sync captures; notify receives remarks for the user (stderr).
	Sync(ctx context.Context, req SyncRequest, notify func(string)) (*capture.Report, error)
	// EditConfig applies f to the config file and saves it; it returns the file's path.
	EditConfig(ctx context.Context, f func(*config.Config) error) (string, error)
}

func writerFor() writer { return localWriter{} }

// localWriter writes from this process.
type localWriter struct{}

func (localWriter) EditConfig(_ context.Context, f func(*config.Config) error) (string, error) {
	d, cfg, _, err := loadConfig()
	if err != nil {
		return "", err
	}
	if err := f(cfg); err != nil {
		return "", err
	}
	return d.ConfigFile.Path, cfg.Save(d.ConfigFile.Path)
}

func (localWriter) Sync(ctx context.Context, req SyncRequest, notify func(string)) (*capture.Report, error) {
	d, cfg, _, err := loadConfig()
	if err != nil {
		return nil, err
	}
	if cfg.Consent.Capture == config.Declined {
		return nil, &exitError{code: 1, err: fmt.Errorf("capture is declined in %s; run `pond consent grant` to capture sessions", d.ConfigFile.Path)}
	}
	env := captureEnv()
	if bootstrapAdapters(cfg, env) {
		if err := cfg.Save(d.ConfigFile.Path); err != nil {
			return nil, err
		}
		notify("enabled the adapters whose data was found: " + strings.Join(cfg.AdapterNames(), ", "))
	}
	targets, err := targetsFor(cfg, env, req.Adapter, req.Path)
	if err != nil {
		return nil, err
	}
	if len(targets) == 0 {
		notify("no adapter is enabled and no agent data was found; see `pond adapters list`")
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
	s, err := store.Open(ctx, store.Options{DataDir: d.Data.Path, StateDir: d.State.Path, Command: "pond sync", Logger: logger()})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	eng := &capture.Engine{Store: s, Env: env, Cursors: &capture.Cursors{Dir: d.State.Path},
		Stamp: store.Stamp{PondVersion: version}, Log: logger()}
	rep, runErr := eng.Sync(ctx, targets, capture.Options{DryRun: req.DryRun, Verify: req.Verify, Progress: req.Progress})
	if !req.DryRun && rep != nil && rep.Inserted.Messages > 0 {
		// Keep the text index caught up, so common-word searches stay on it (a fold, when
		// the index exists; building it is pond optimize's job).
		if _, err := s.MaintainTextIndex(ctx, false); err != nil {
			notify("text index not updated: " + err.Error())
		}
	}
	if !req.DryRun {
		if err := capture.SaveLastSync(d.State.Path, rep, runErr); err != nil {
			return nil, err
		}
	}
	return rep, runErr
}
