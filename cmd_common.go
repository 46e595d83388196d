package main

import (
	"context"
	"errors"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/paths"
)

// globalFlags are the path overrides every command accepts.
var globalFlags paths.Overrides

func addGlobalFlags(root *cobra.Command) {
	f := root.PersistentFlags()
	f.StringVar(&globalFlags.ConfigFile, "config-file", "", "config file (default: per-OS config dir; env "+paths.EnvConfigFile+")")
	f.StringVar(&globalFlags.Data, "data-dir", "", "data directory: Lance tables, SQLite mirror, exports, models (env "+paths.EnvData+")")
	f.StringVar(&globalFlags.State, "state-dir", "", "state directory: store lock, sync records (env "+paths.EnvState+")")
	f.StringVar(&globalFlags.Runtime, "runtime-dir", "", "runtime directory for the daemon's sockets (env "+paths.EnvRuntime+")")
	f.StringVar(&globalFlags.Cache, "cache-dir", "", "cache directory (env "+paths.EnvCache+")")
	f.StringVar(&globalFlags.Storage, "storage-path", "", "where the Lance archive lives: a path, s3://bucket/prefix or s3+http(s)://host:port/bucket/prefix (env "+paths.EnvStorage+"; default: the config's [storage] path, else the data directory)")
}

func resolveDirs() (paths.Dirs, error) { return paths.Resolve(globalFlags) }

// loadConfig resolves the locations and reads the config file (exists is false when there is
// none yet and the defaults apply).
func loadConfig() (d paths.Dirs, cfg *config.Config, exists bool, err error) {
	if d, err = resolveDirs(); err != nil {
		return d, nil, false, err
	}
	cfg, exists, err = config.Load(d.ConfigFile.Path)
	return d, cfg, exists, err
}

// logger is where commands log: stderr, warnings and up unless POND_LOG=debug|info.
func logger() *slog.Logger {
	level := slog.LevelWarn
	switch os.Getenv("POND_LOG") {
	case "debug":
		level = slog.LevelDebug
	case "info":
		level = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// archive is how every command reaches Pond: the daemon when one runs, else this process
// (daemon.Local). command names this process in the store lock's holder file; opts say whether
// it needs the archive open and the embedding model served.
func archive(ctx context.Context, command string, opts daemon.LocalOptions) (ipc.API, func(), error) {
	d, err := resolveDirs()
	if err != nil {
		return nil, nil, err
	}
	opts.Dirs, opts.Version, opts.Log, opts.Command = d, version, logger(), command
	return daemon.Local(ctx, opts)
}

// follow runs call while show sees the events api publishes meanwhile (progress), and returns
// once show has seen every event published before call returned. A nil show only calls.
func follow(ctx context.Context, api ipc.API, show func(apitype.Event), call func() error) error {
	if show == nil {
		return call()
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := make(chan apitype.Event, 64)
	go func() {
		defer close(events)
		api.Watch(wctx, "", func(ev apitype.Event) error {
			select {
			case events <- ev:
				return nil
			case <-wctx.Done():
				return wctx.Err()
			}
		})
	}()
	hello, ok := <-events
	if !ok {
		return call() // no event stream: go on without progress
	}
	last := hello.ID
	done := make(chan error, 1)
	go func() { done <- call() }()
	var err error
wait:
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return <-done
			}
			last = ev.ID
			show(ev)
		case err = <-done:
			break wait
		}
	}
	// Everything published before call returned has an id up to the one a new stream starts
	// from: show the events up to it.
	mark, epoch, ok := streamMark(ctx, api)
	for ok && epoch == hello.Epoch && last < mark {
		ev, open := <-events
		if !open {
			break
		}
		last = ev.ID
		show(ev)
	}
	return err
}

// streamMark is the id and epoch of the last event api has published.
func streamMark(ctx context.Context, api ipc.API) (id uint64, epoch string, ok bool) {
	errGot := errors.New("got the mark")
	err := api.Watch(ctx, "", func(ev apitype.Event) error {
		id, epoch = ev.ID, ev.Epoch
		return errGot
	})
	return id, epoch, errors.Is(err, errGot)
}
