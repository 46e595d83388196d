package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/pondhq/pond/daemon/capture"
	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/daemon/mcpserver"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store"
)

// ExitRestart is the exit code for "restart me": the daemon passed its memory ceiling.
const ExitRestart = 75

// ErrMemoryCeiling is returned by Run when the process outgrew Options.MemoryCeiling.
var ErrMemoryCeiling = errors.New("daemon: memory ceiling reached; exiting for the service manager to restart")

// Options configure a daemon.
type Options struct {
	Dirs    paths.Dirs
	Version string
	Log     *slog.Logger
	// SyncEvery is the periodic full sync (default: the config's sync.interval_minutes).
	SyncEvery time.Duration
	// Debounce is how long a watched root must be quiet before its adapter syncs (default 50 ms).
	Debounce time.Duration
	// MemoryCeiling makes the daemon exit (ErrMemoryCeiling) past this resident size
	// (default 4 GiB; negative: none).
	MemoryCeiling int64
	// Listen, when set, also serves the API on this loopback TCP address, every request with
	// the bearer token from the state directory's api-token file and a Host naming the address.
	Listen string
	// OpenSockets opens the sockets to every user so the peer-uid check refuses them (tests).
	OpenSockets bool
	// Ready is called once both sockets listen.
	Ready func()
	// UpkeepEvery is how often upkeep looks for work once rows came in (default 10 min);
	// KeepVersions is how long after a table version was replaced it may be pruned (0: the
	// default for where the tables are, see view.KeepFor; negative: every replaced version
	// at once).
	UpkeepEvery  time.Duration
	KeepVersions time.Duration
	// CatchUpEvery is how often, with an archive other machines may write (one named by a
	// storage path: an object store, a network folder), the mirror takes in their rows
	// (default 30 s).
	CatchUpEvery time.Duration
}

// The daemon's defaults, for the options left zero and for the flags that set them.
const (
	DefaultDebounce      = 50 * time.Millisecond
	DefaultMemoryCeiling = 4 << 30
	DefaultUpkeepEvery   = 10 * time.Minute
	DefaultCatchUpEvery  = 30 * time.Second
)

// Run is the daemon: it opens the store, serves the API on pond.sock and MCP on mcp.sock,
// captures as agents write (watcher plus periodic sync, with consent) and stops cleanly when
// ctx ends: the running batch finishes or is abandoned at a safe point, MCP sessions close and
// the sockets are removed.
func Run(ctx context.Context, opts Options) error {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.MemoryCeiling == 0 {
		opts.MemoryCeiling = DefaultMemoryCeiling
	}
	if opts.UpkeepEvery <= 0 {
		opts.UpkeepEvery = DefaultUpkeepEvery
	}
	if opts.CatchUpEvery <= 0 {
		opts.CatchUpEvery = DefaultCatchUpEvery
	}
	cfg, _, err := config.Load(opts.Dirs.ConfigFile.Path)
	if err != nil {
		return err
	}
	if opts.SyncEvery <= 0 {
		opts.SyncEvery = time.Duration(max(cfg.Sync.IntervalMinutes, 1)) * time.Minute
	}

	// The lifetime lock, then the sockets, then the store: a second daemon must stop at the
	// lock, before it touches the first one's sockets (ipc.Lock says why the dial in Listen
	// is not enough) or opens the store. The lock is released last, after the sockets are gone.
	lnOpts := ipc.ListenOptions{OpenToAll: opts.OpenSockets}
	unlock, err := ipc.Lock(opts.Dirs.Runtime.Path, lnOpts)
	if err != nil {
		return err
	}
	defer unlock()
	apiLn, err := ipc.Listen(ipc.APISocket(opts.Dirs.Runtime.Path), lnOpts)
	if err != nil {
		return err
	}
	defer apiLn.Close()
	mcpLn, err := ipc.Listen(ipc.MCPSocket(opts.Dirs.Runtime.Path), lnOpts)
	if err != nil {
		return err
	}
	defer mcpLn.Close()
	var tcpLn net.Listener
	var token string
	if opts.Listen != "" {
		if token, err = ipc.LoadToken(filepath.Join(opts.Dirs.State.Path, ipc.TokenFileName)); err != nil {
			return err
		}
		if tcpLn, err = ipc.ListenTCP(opts.Listen); err != nil {
			return err
		}
		defer tcpLn.Close()
	}

	// Strong read consistency (0: every operation looks for a newer version): the daemon's own
	// captures commit through lancedb-go's table handles while queries and upkeep use
	// pond-native's, and with a 1 s interval an upkeep right after a capture pruned from a stale
	// view (it found the newest versions "not yet written" and kept them). On a local disk the
	// check is a directory lookup.
	sopts, err := StoreOptions(opts.Dirs, "pond daemon", log)
	if err != nil {
		return err
	}
	sopts.Lance.ReadConsistency, sopts.Lance.IndexCacheBytes, sopts.Lance.MetadataCacheBytes = 0, 64<<20, 32<<20
	st, err := store.Open(ctx, sopts)
	if err != nil {
		return err
	}
	defer st.Close()

	d := &daemon{opts: opts, log: log, hub: ipc.NewHub(1024), started: time.Now().UTC(), cfgChanged: make(chan struct{}, 1),
		upkeepNow: make(chan struct{}, 1)}
	if d.watch, err = newWatcher(log, opts.Debounce); err != nil {
		return fmt.Errorf("daemon: file watcher: %w", err)
	}
	defer d.watch.close()
	d.svc = &Service{Dirs: opts.Dirs, Store: st, Env: capture.Env(), Version: opts.Version, Log: log, Hub: d.hub,
		ConfigChanged: d.configChanged, Daemon: d.info}
	defer d.svc.Close()
	if err := d.svc.serveModel(cfg); err != nil {
		// Full-text search still works; vector search says why it cannot run.
		log.Error("daemon: semantic search unavailable", "error", err)
	}
	d.svc.upkeep.rewroteNow = make(chan struct{}, 1)
	d.svc.upkeep.later.Store(true) // look once after the start-up sync: others may have written meanwhile

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	goRun := func(name string, f func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(ctx); err != nil && ctx.Err() == nil {
				log.Error("daemon: part stopped", "part", name, "error", err)
				cancel(err)
			}
		}()
	}
	api := &ipc.Server{API: d.svc, Hub: d.hub, Version: opts.Version, Log: log}
	goRun("api", func(ctx context.Context) error { return api.Serve(ctx, apiLn) })
	if tcpLn != nil {
		goRun("api-tcp", func(ctx context.Context) error { return api.ServeTCP(ctx, tcpLn, token) })
		log.Info("daemon: also listening on TCP", "addr", tcpLn.Addr().String(), "token_file", filepath.Join(opts.Dirs.State.Path, ipc.TokenFileName))
	}
	goRun("mcp", func(ctx context.Context) error {
		return mcpserver.ServeListener(ctx, mcpLn, mcpserver.New(d.svc, opts.Version, log), log)
	})
	goRun("watcher", func(ctx context.Context) error { d.watch.run(ctx); return nil })
	goRun("sync", d.syncLoop)
	goRun("upkeep", d.upkeepLoop)
	if st.Shared() {
		goRun("catch-up", d.catchUpLoop)
	}
	if opts.MemoryCeiling > 0 {
		goRun("memory", d.memoryGuard)
	}
	goRun("release", d.releaseWhenQuiet)
	log.Info("daemon: ready", "api", apiLn.Addr().String(), "mcp", mcpLn.Addr().String(), "pid", os.Getpid(), "epoch", d.hub.Epoch())
	if opts.Ready != nil {
		opts.Ready()
	}
	<-ctx.Done()
	wg.Wait()
	log.Info("daemon: stopped")
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

type daemon struct {
	opts       Options
	log        *slog.Logger
	svc        *Service
	hub        *ipc.Hub
	watch      *watcher
	started    time.Time
	cfgChanged chan struct{}
	upkeepNow  chan struct{} // the start-up sync is done: upkeep may look

	mu      sync.Mutex
	lastErr string
}

// upkeepLoop runs the automatic upkeep (Service.AutoUpkeep) in its own goroutine, so a long
// embedding never holds up captures: once after the start-up sync, then every UpkeepEvery,
// round after round while embedding is left over, and once the versions an upkeep that
// rewrote the archive replaced are old enough to prune (a compaction leaves the archive twice
// its size until then).
func (d *daemon) upkeepLoop(ctx context.Context) error {
	tick := time.NewTicker(d.opts.UpkeepEvery)
	defer tick.Stop()
	prune := time.NewTimer(time.Hour)
	prune.Stop()
	defer prune.Stop()
	var pruneFor int64 // the rewrite the prune timer is set for
	for {
		if at := d.svc.upkeep.rewrote.Load(); at != pruneFor {
			pruneFor = at
			prune.Reset(time.Until(time.Unix(0, at).Add(d.keepVersions() + time.Second)))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-d.svc.upkeep.rewroteNow:
			continue // a requested upkeep rewrote: set the timer for it
		case <-d.upkeepNow:
		case <-tick.C:
		case <-prune.C:
		}
		for d.svc.AutoUpkeep(ctx, d.opts.KeepVersions) && ctx.Err() == nil {
		}
	}
}

// keepVersions is how long replaced versions are kept (Options.KeepVersions resolved).
func (d *daemon) keepVersions() time.Duration {
	return view.KeepFor(d.opts.KeepVersions, d.svc.Store.Location().Remote())
}

// catchUpLoop brings the rows other machines commit to a shared archive (Lance on an object
// store) into this machine's mirror, so its search and SQL see them: at start, then every
// CatchUpEvery. A failure is reported in status and tried again at the next tick.
func (d *daemon) catchUpLoop(ctx context.Context) error {
	tick := time.NewTicker(d.opts.CatchUpEvery)
	defer tick.Stop()
	for {
		got, err := d.svc.Store.CatchUp(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			d.log.Error("daemon: catching up with other machines' commits failed", "error", err)
			d.setErr(fmt.Errorf("catching up with other machines' commits: %w", err))
		case got.Sessions+got.Messages+got.Parts > 0:
			d.log.Info("daemon: took in other machines' rows", "sessions", got.Sessions, "messages", got.Messages, "parts", got.Parts)
			d.svc.publish(apitype.EventCaptured, view.Captured{Source: "catch-up", Inserted: got})
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

func (d *daemon) configChanged() {
	select {
	case d.cfgChanged <- struct{}{}:
	default:
	}
}

func (d *daemon) info() *view.DaemonInfo {
	d.mu.Lock()
	defer d.mu.Unlock()
	return &view.DaemonInfo{PID: os.Getpid(), StartedAt: d.started, Epoch: d.hub.Epoch(), Syncing: d.svc.Writing(),
		LastError: d.lastErr, Watching: d.watch.count()}
}

// syncLoop runs the automatic syncs: every adapter at start and every SyncEvery, and the
// adapters whose files changed as the watcher reports them. A cycle that finds a write under
// way is put off, not dropped.
func (d *daemon) syncLoop(ctx context.Context) error {
	d.refreshRoots()
	tick := time.NewTicker(d.opts.SyncEvery)
	defer tick.Stop()
	var retry <-chan time.Time
	pending := map[string]bool{}
	all, startup := true, true // the start-up sync
	for {
		if all || len(pending) > 0 {
			busy := d.autoSync(ctx, all, pending)
			if busy {
				retry = time.After(time.Second)
			} else {
				all = false
				clear(pending)
			}
			if !busy && startup {
				startup = false
				d.upkeepNow <- struct{}{}
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			d.refreshRoots()
			all = true
		case <-d.cfgChanged:
			d.refreshRoots()
		case <-d.watch.ready:
			for _, a := range d.watch.take() {
				pending[a] = true
			}
		case <-retry:
		}
	}
}

// refreshRoots points the watcher at the enabled adapters' roots (they may have appeared
// since, or the config changed).
func (d *daemon) refreshRoots() {
	cfg, _, err := config.Load(d.opts.Dirs.ConfigFile.Path)
	if err != nil {
		d.setErr(err)
		return
	}
	targets, _ := capture.Targets(cfg, d.svc.Env, "", "")
	targets, _ = consented(cfg, targets, config.Granted) // only what automatic capture reads
	d.watch.setRoots(watchedRoots(targets))
}

// watchedRoots are the roots the watcher follows, by adapter: every target's, except a root
// searched rather than owned by the agent (Capabilities.Searched: Aider's home), which a watch
// would cover whole; the periodic sync finds what changes there.
func watchedRoots(targets []capture.Target) map[string][]string {
	roots := map[string][]string{}
	for _, t := range targets {
		if !t.Adapter.Capabilities().Searched {
			roots[t.Adapter.Name()] = t.Roots
		}
	}
	return roots
}

// autoSync syncs every enabled adapter (all) or those in only, of the agents whose capture
// was granted. It reports busy when another write holds the slot.
func (d *daemon) autoSync(ctx context.Context, all bool, only map[string]bool) (busy bool) {
	cfg, err := d.svc.automaticConfig()
	if err != nil {
		d.setErr(err)
		return false
	}
	targets, err := capture.Targets(cfg, d.svc.Env, "", "")
	if err != nil {
		d.setErr(err)
		return false
	}
	targets, _ = consented(cfg, targets, config.Granted)
	if !all {
		targets = slices.DeleteFunc(targets, func(t capture.Target) bool { return !only[t.Adapter.Name()] })
	}
	if len(targets) == 0 {
		return false
	}
	rep, err := d.svc.runSync(ctx, targets, capture.Options{}, true)
	var ae *apitype.Error
	if errors.As(err, &ae) && ae.Code == apitype.CodeSyncRunning {
		return true
	}
	if err != nil {
		if ctx.Err() == nil {
			d.log.Error("daemon: sync failed", "error", err)
			d.setErr(err)
		}
		return false
	}
	d.setErr(nil)
	if rep.Inserted.Sessions+rep.Inserted.Messages > 0 {
		d.log.Info("daemon: captured", "sessions", rep.Inserted.Sessions, "messages", rep.Inserted.Messages, "parts", rep.Inserted.Parts)
	}
	return false
}

func (d *daemon) setErr(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lastErr = ""
	if err != nil {
		d.lastErr = err.Error()
	}
}

// memoryGuard ends the daemon past its memory ceiling, so the service manager restarts it
// with a clean heap and fresh native caches instead of letting it grow without bound.
func (d *daemon) memoryGuard(ctx context.Context) error {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if rss := residentBytes(); rss > d.opts.MemoryCeiling {
				d.log.Error("daemon: memory ceiling reached", "rss", rss, "ceiling", d.opts.MemoryCeiling)
				return ErrMemoryCeiling
			}
		}
	}
}
