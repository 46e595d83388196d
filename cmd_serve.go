package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/daemon/mcpserver"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/paths"
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
				go serveSync(ctx, api, d, time.Duration(syncEvery)*time.Second)
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
func serveSync(ctx context.Context, api ipc.API, d paths.Dirs, every time.Duration) {
	for {
		if cfg, _, err := config.Load(d.ConfigFile.Path); err == nil && cfg.Consent.Capture != config.Declined {
			if _, err := api.Sync(ctx, &apitype.SyncRequest{}); err != nil && ctx.Err() == nil {
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
