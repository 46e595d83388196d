package main

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
)

func newDaemonCmd() *cobra.Command {
	var syncEvery, debounce, upkeepEvery, keepVersions, catchUpEvery time.Duration
	var memCeiling int64
	var logLevel string
	var openSockets bool
	var listen string
	cmd := &cobra.Command{
		Use:   "daemon",
		Short: "Run Pond's per-user service: live capture, the socket API and the MCP server",
		Long: `daemon runs in the foreground until SIGTERM or Ctrl-C; a login service (or you) starts it.
While it runs it is the only writer: pond sync, import, adapters, consent, optimize, mirror
rebuild and the tray go through it, and pond sql and export read through it.

It listens on two sockets in the runtime directory (0700, sockets 0600, only your uid):
  pond.sock  the HTTP API under /v1 (status, search, get-session, get-message, x/sql, x/sql/export, ingest,
             import, export, adapters, consent, sync, optimize, resume, model, mirror/rebuild,
             mirror/verify, watch)
  mcp.sock   MCP (newline-delimited JSON-RPC); agents reach it through "pond mcp"

With capture consent granted (pond consent grant) it syncs every enabled adapter at start,
again when their files change (a watcher on each agent's folder), and every --sync-every.
It exits with code 75 past its memory ceiling so the service manager restarts it.

Upkeep is the daemon's too (what pond optimize does on request): once rows came in, every
--upkeep-every it embeds new messages when semantic search is on (in rounds of 1,024, between
syncs), compacts small fragments, folds new rows into the indexes and removes the table versions
replaced longer than --keep-versions ago, each only when its measurement says so. After a
compaction or an index rewrite it prunes again as soon as the versions it replaced are that
old: until then the archive holds the old files beside the new. A local archive keeps a
replaced version only while a Pond process reads it (pond copy from this archive holds what it
reads); one on an object store keeps it 2 minutes by default, for other machines' reads.
Upkeep runs at a lower CPU priority (nice 10 on Linux), so searches, captures and the agents
you run come first; and once the daemon has been quiet for a while after work, it gives the
memory that work took back to the system.

With the archive on an object store (pond storage use), other machines may write it too: at
start and every --catch-up-every the daemon takes their new rows into this machine's SQL mirror,
so search and SQL here see their sessions (pond status --hosts lists the machines).

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
			switch {
			case !cmd.Flags().Changed("keep-versions"):
				keepVersions = 0 // Options' 0: the default for where the tables are
			case keepVersions == 0:
				keepVersions = -1 // the flag's 0 is "keep no replaced version"
			}
			return daemon.Run(cmd.Context(), daemon.Options{Dirs: d, Version: version, Log: log, SyncEvery: syncEvery,
				Debounce: debounce, MemoryCeiling: memCeiling, OpenSockets: openSockets, Listen: listen,
				UpkeepEvery: upkeepEvery, KeepVersions: keepVersions, CatchUpEvery: catchUpEvery})
		},
	}
	f := cmd.Flags()
	f.DurationVar(&syncEvery, "sync-every", 0, "periodic full sync (default: the config's sync.interval_minutes, 5m)")
	f.DurationVar(&debounce, "debounce", daemon.DefaultDebounce, "how long an agent's files must be quiet before they are read")
	f.Int64Var(&memCeiling, "memory-ceiling", daemon.DefaultMemoryCeiling, "exit with code 75 past this resident size in bytes (-1: never)")
	f.DurationVar(&upkeepEvery, "upkeep-every", daemon.DefaultUpkeepEvery, "how often upkeep looks for work after captures")
	f.DurationVar(&keepVersions, "keep-versions", 0, "upkeep removes the table versions replaced longer ago than this (default: on local disk as soon as no Pond process reads them, on an object store 2m)")
	f.DurationVar(&catchUpEvery, "catch-up-every", daemon.DefaultCatchUpEvery, "with a shared archive on an object store, how often other machines' rows are taken into the mirror")
	f.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	f.StringVar(&listen, "listen", "", "also serve the API on this loopback address (127.0.0.1:PORT); every request needs the bearer token in the state dir's api-token file")
	addTestFlags(cmd, &openSockets)
	return cmd
}
