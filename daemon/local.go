package daemon

import (
	"context"
	"errors"
	"log/slog"

	"github.com/pondhq/pond/daemon/capture"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/store"
)

// LocalOptions say what a command needs of the archive.
type LocalOptions struct {
	Dirs    paths.Dirs
	Version string
	Log     *slog.Logger
	// Command names this process in the store lock's holder file ("pond sync").
	Command string
	// Archive opens the store when no daemon answers. Without it the service edits the config
	// and reads the SQL mirror, nothing else.
	Archive bool
	// Model serves the embedding model the config turns on (if any) to vector search and
	// embedding when no daemon answers; the model loads when first asked for a vector. A model
	// that cannot be served fails Local, unless OnModelError is set: it is told, and the
	// service goes on without semantic search.
	Model        bool
	OnModelError func(error)
}

// Local is how a command reaches the archive: the client of the daemon when one answers on the
// API socket (the only writer while it runs), otherwise the daemon's Service in this process,
// over the store opened here, writing under the store lock. Either way the command speaks
// ipc.API, and follows progress on its Watch. close releases what Local opened.
func Local(ctx context.Context, opts LocalOptions) (api ipc.API, close func(), err error) {
	c, err := ipc.Connect(ctx, ipc.APISocket(opts.Dirs.Runtime.Path))
	if err == nil {
		return c, c.Close, nil
	}
	if !errors.Is(err, ipc.ErrNoDaemon) {
		// Something answers but cannot be used (another user's socket, ipc.ErrUntrusted): say
		// so rather than write beside it in this process.
		return nil, nil, err
	}
	svc := &Service{Dirs: opts.Dirs, Env: capture.Env(), Version: opts.Version, Log: opts.Log, Hub: ipc.NewHub(64)}
	close = func() {
		svc.Close()
		if svc.Store != nil {
			svc.Store.Close()
		}
	}
	if opts.Archive {
		sopts, err := StoreOptions(opts.Dirs, opts.Command, opts.Log)
		if err != nil {
			return nil, nil, err
		}
		if svc.Store, err = store.Open(ctx, sopts); err != nil {
			return nil, nil, err
		}
	}
	if opts.Model && svc.Store != nil {
		cfg, err := svc.loadConfig()
		if err == nil {
			err = svc.serveModel(cfg)
		}
		if err != nil && opts.OnModelError == nil {
			close()
			return nil, nil, err
		}
		if err != nil {
			opts.OnModelError(err)
		}
	}
	return svc, close, nil
}
