package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/present"
)

func newSyncCmd() *cobra.Command {
	var path, format string
	var dryRun, verify, noWait bool
	cmd := &cobra.Command{
		Use:   "sync [ADAPTER]",
		Short: "Capture new and changed sessions from the agents' files",
		Long: `sync reads every enabled adapter's session files (or only ADAPTER's) and stores what is new.
Files unchanged since the last sync are skipped from their size and time alone; a file that only
grew is read from where the last sync stopped. Sessions stay in the archive when the agent
deletes its files.

--path DIR reads ADAPTER's data from DIR instead of its usual place, once: the folder the agent
itself uses, which it would find on its own. It does not change the config.
` + agentRootsHelp() + `
A missing or unreadable source fails only its adapter; the run exits 0 unless that adapter was
named. With --no-wait, a sync that finds another writer holding the store exits 0 at once.

Examples:
  pond sync
  pond sync claude-code --path /backup/old-laptop/.claude
  pond sync --dry-run --format json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			req := &apitype.SyncRequest{DryRun: dryRun, Verify: verify, NoWait: noWait}
			if len(args) == 1 {
				req.Adapter = args[0]
			}
			if path != "" {
				abs, err := filepath.Abs(path)
				if err != nil {
					return err
				}
				req.Path = abs
			}
			var progress func(apitype.Event)
			if isTerminal(os.Stderr) && format != "json" {
				progress = syncProgress(os.Stderr)
			}
			api, closeAPI, err := archive(ctx, "pond sync", daemon.LocalOptions{Archive: true})
			if err != nil {
				return err
			}
			defer closeAPI()
			var resp *apitype.SyncResponse
			err = follow(ctx, api, progress, func() (err error) { resp, err = api.Sync(ctx, req); return err })
			var ae *apitype.Error
			if errors.As(err, &ae) && ae.Code == apitype.CodeSyncRunning {
				busy := "the daemon is syncing already"
				if holder, ok := ae.Details["holder"].(string); ok {
					busy = "another writer holds the store: " + holder
				}
				fmt.Fprintln(cmd.ErrOrStderr(), busy+"; not waiting")
				return nil
			}
			if err != nil {
				return err
			}
			for _, r := range resp.Remarks {
				fmt.Fprintln(cmd.ErrOrStderr(), r)
			}
			rep := resp.Report
			if err := render(cmd.OutOrStdout(), format, rep, func() string { return present.Sync(rep) }); err != nil {
				return err
			}
			if rep.Outcome == "failed" {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&path, "path", "", "read ADAPTER's data from this folder, once")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "say what would be read; read and write nothing")
	cmd.Flags().BoolVar(&verify, "verify", false, "ignore what earlier syncs read: re-read every source from the start")
	cmd.Flags().BoolVar(&noWait, "no-wait", false, "exit 0 at once when another writer holds the store")
	addFormatFlag(cmd, &format)
	return cmd
}

// agentRootsHelp lists each adapter's root for sync's help, one line each, as adapters/all
// lists them and each describes its own.
func agentRootsHelp() string {
	width := 0
	for _, a := range all.Adapters() {
		width = max(width, len(a.Name()))
	}
	var b strings.Builder
	for _, a := range all.Adapters() {
		root := ""
		if d, ok := a.(adapters.Describer); ok {
			root = d.Describe().Root
		}
		fmt.Fprintf(&b, "  %-*s  %s\n", width, a.Name(), root)
	}
	return b.String()
}
