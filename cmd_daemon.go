package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/daemon/mcpserver"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/store"
)

func newDaemonCmd() *cobra.Command {
	var syncEvery, debounce, upkeepEvery, keepVersions time.Duration
	var memCeiling int64
	var logLevel string
	var openSockets bool
	var listen string
	cmd := &cobra.Command{
		Use:   "daemon",
		Short: "Run Pond's per-user service: live capture, the socket API and the MCP server",
		Long: `daemon runs in the foreground until SIGTERM or Ctrl-C; a login service (or you) starts it.
While it runs it is the only writer: pond sync, adapters, consent, optimize and the tray go
through it.

It listens on two sockets in the runtime directory (0700, sockets 0600, only your uid):
  pond.sock  the HTTP API under /v1 (status, search, get-session, get-message, x/sql, ingest, adapters, consent,
             sync, optimize, resume, model, mirror/rebuild, watch)
  mcp.sock   MCP (newline-delimited JSON-RPC); agents reach it through "pond mcp"

With capture consent granted (pond consent grant) it syncs every enabled adapter at start,
again when their files change (a watcher on each agent's folder), and every --sync-every.
It exits with code 75 past its memory ceiling so the service manager restarts it.

Upkeep is the daemon's too (what pond optimize does on request): once rows came in, every
--upkeep-every it embeds new messages when semantic search is on (in rounds of 1,024, between
syncs), compacts small fragments, folds new rows into the indexes and removes table versions
older than --keep-versions, each only when its measurement says so.

--listen 127.0.0.1:PORT also serves the API over loopback TCP (off by default): every request
needs "Authorization: Bearer <token>" with the token from api-token in the state directory
(created 0600), and a Host header naming that address.

Logs go to stderr. Examples:
  pond daemon
  pond daemon --sync-every 10m --log-level debug
  pond daemon --listen 127.0.0.1:7777`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := resolveDirs()
			if err != nil {
				return err
			}
			var level slog.Level
			if err := level.UnmarshalText([]byte(logLevel)); err != nil {
				return &exitError{code: 2, err: fmt.Errorf("--log-level %q: want debug, info, warn or error", logLevel)}
			}
			log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
			if keepVersions == 0 {
				keepVersions = -1 // keep no replaced version (Options' zero is the default)
			}
			err = daemon.Run(cmd.Context(), daemon.Options{Dirs: d, Version: version, Log: log, SyncEvery: syncEvery,
				Debounce: debounce, MemoryCeiling: memCeiling, OpenSockets: openSockets, Listen: listen,
				UpkeepEvery: upkeepEvery, KeepVersions: keepVersions})
			switch {
			case errors.Is(err, daemon.ErrMemoryCeiling):
				return &exitError{code: daemon.ExitRestart, err: err}
			case errors.Is(err, ipc.ErrDaemonRunning):
				return &exitError{code: 1, err: fmt.Errorf("%w; stop it first, or use it (pond status)", err)}
			}
			return err
		},
	}
	f := cmd.Flags()
	f.DurationVar(&syncEvery, "sync-every", 0, "periodic full sync (default: the config's sync.interval_minutes, 5m)")
	f.DurationVar(&debounce, "debounce", 50*time.Millisecond, "how long an agent's files must be quiet before they are read")
	f.Int64Var(&memCeiling, "memory-ceiling", 4<<30, "exit with code 75 past this resident size in bytes (-1: never)")
	f.DurationVar(&upkeepEvery, "upkeep-every", 10*time.Minute, "how often upkeep looks for work after captures")
	f.DurationVar(&keepVersions, "keep-versions", store.KeepVersions, "upkeep removes table versions older than this (0: every replaced version)")
	f.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	f.StringVar(&listen, "listen", "", "also serve the API on this loopback address (127.0.0.1:PORT); every request needs the bearer token in the state dir's api-token file")
	f.BoolVar(&openSockets, "test-open-sockets", false, "tests only: let every user connect, so the peer-uid check answers 403")
	f.MarkHidden("test-open-sockets")
	return cmd
}

func newMCPCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "MCP server on stdio for agents: relays to the running daemon",
		Long: `mcp connects stdin and stdout to the daemon's MCP socket, byte for byte, so an agent can
launch Pond as an MCP server. stdout carries only JSON-RPC; messages go to stderr. It needs
a running daemon (pond daemon); "pond serve --transport stdio" also works without one.

Register it with an agent, e.g.:
  claude mcp add pond -- pond mcp`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := resolveDirs()
			if err != nil {
				return err
			}
			err = ipc.Bridge(cmd.Context(), ipc.MCPSocket(d.Runtime.Path), os.Stdin, os.Stdout)
			if errors.Is(err, ipc.ErrNoDaemon) {
				return fmt.Errorf("%w; start it with `pond daemon`, or run `pond serve --transport stdio`", err)
			}
			return err
		},
	}
}

func newServeCmd() *cobra.Command {
	var transport, bootstrap string
	var withSync bool
	var syncEvery int
	cmd := &cobra.Command{
		Use:   "serve --transport stdio",
		Short: "MCP on stdio: through the daemon when it runs, else in this process",
		Long: `serve is how agent plugins launch Pond. With a daemon running it relays to it like pond mcp;
without one it serves MCP from the archive in this process (writes, if any, under the store lock).

  --with-sync        sync once at start when no daemon runs (the daemon syncs by itself)
  --sync-every N     and again every N seconds
  --bootstrap NAME   enable adapter NAME in the config first`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if transport != "stdio" {
				return &exitError{code: 2, err: fmt.Errorf("--transport %q: only stdio is served (use the daemon's sockets otherwise)", transport)}
			}
			ctx := cmd.Context()
			d, err := resolveDirs()
			if err != nil {
				return err
			}
			if bootstrap != "" {
				if _, err := writerFor(ctx).SetAdapters(ctx, &apitype.AdapterRequest{Action: "enable", Name: bootstrap}); err != nil {
					return err
				}
			}
			if c := daemonClient(ctx); c != nil {
				c.Close()
				return ipc.Bridge(ctx, ipc.MCPSocket(d.Runtime.Path), os.Stdin, os.Stdout)
			}
			st, err := openStore(ctx, "pond serve")
			if err != nil {
				return err
			}
			defer st.Close()
			svc, err := localService(st)
			if err != nil {
				return err
			}
			defer svc.Close()
			if withSync {
				go serveSync(ctx, svc, time.Duration(syncEvery)*time.Second)
			}
			return mcpserver.New(svc, version, logger()).Run(ctx, &mcp.StdioTransport{})
		},
	}
	cmd.Flags().StringVar(&transport, "transport", "stdio", "stdio (the only transport served here)")
	cmd.Flags().BoolVar(&withSync, "with-sync", false, "sync at start when no daemon runs")
	cmd.Flags().IntVar(&syncEvery, "sync-every", 0, "with --with-sync: sync again every N seconds")
	cmd.Flags().StringVar(&bootstrap, "bootstrap", "", "enable this adapter first")
	return cmd
}

// serveSync is `pond serve --with-sync`: capture at start and, with every > 0, periodically.
func serveSync(ctx context.Context, svc *daemon.Service, every time.Duration) {
	for {
		if cfg, _, err := config.Load(svc.Dirs.ConfigFile.Path); err == nil && cfg.Consent.Capture != config.Declined {
			if _, err := svc.Sync(ctx, &apitype.SyncRequest{}); err != nil && ctx.Err() == nil {
				logger().Warn("serve: sync failed", "error", err)
			}
		}
		if every <= 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(every):
		}
	}
}
