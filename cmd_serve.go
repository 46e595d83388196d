package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/daemon/mcpserver"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
)

func newServeCmd() *cobra.Command {
	var transport, bootstrap string
	var withSync bool
	var syncEvery int
	cmd := &cobra.Command{
		Use:   "serve --transport stdio",
		Short: "MCP on stdio: through the daemon when it runs, else in this process",
		Long: `serve is how agent plugins launch Pond. With a daemon running it relays to it like pond mcp;
without one it serves MCP from the archive in this process (writes, if any, under the store lock).

  --with-sync        sync once at start when no daemon runs (the daemon syncs by itself):
                     only the agents whose capture was granted (pond consent)
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
			log := logger()
			api, closeAPI, err := archive(ctx, "pond serve", daemon.LocalOptions{Archive: true, Model: true,
				OnModelError: func(err error) { log.Warn("serve: semantic search unavailable", "error", describe(err)) }})
			if err != nil {
				return err
			}
			defer closeAPI()
			if bootstrap != "" {
				if _, err := api.SetAdapters(ctx, &apitype.AdapterRequest{Action: "enable", Name: bootstrap}); err != nil {
					return err
				}
			}
			if _, remote := api.(*ipc.Client); remote {
				return ipc.Bridge(ctx, ipc.MCPSocket(d.Runtime.Path), os.Stdin, os.Stdout)
			}
			if withSync {
				go serveSync(ctx, api, log, time.Duration(syncEvery)*time.Second)
			}
			return mcpserver.New(api, version, log).Run(ctx, &mcp.StdioTransport{})
		},
	}
	cmd.Flags().StringVar(&transport, "transport", "stdio", "stdio (the only transport served here)")
	cmd.Flags().BoolVar(&withSync, "with-sync", false, "sync at start when no daemon runs")
	cmd.Flags().IntVar(&syncEvery, "sync-every", 0, "with --with-sync: sync again every N seconds")
	cmd.Flags().StringVar(&bootstrap, "bootstrap", "", "enable this adapter first")
	return cmd
}

// serveSync is `pond serve --with-sync`: capture at start and, with every > 0, periodically.
// Nobody typed it, so it is automatic capture: only the agents whose capture was granted.
func serveSync(ctx context.Context, api ipc.API, log *slog.Logger, every time.Duration) {
	for {
		resp, err := api.Sync(ctx, &apitype.SyncRequest{Automatic: true})
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("serve: sync failed", "error", err)
		case err == nil:
			var read []string
			for _, a := range resp.Report.Adapters {
				read = append(read, a.Adapter)
			}
			log.Info("serve: synced", "adapters", strings.Join(read, ","), "sessions", resp.Report.Inserted.Sessions,
				"messages", resp.Report.Inserted.Messages, "remarks", strings.Join(resp.Remarks, "; "))
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
