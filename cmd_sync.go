package main

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/daemon/capture"
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
			req := SyncRequest{Path: path, DryRun: dryRun, Verify: verify, NoWait: noWait}
			if len(args) == 1 {
				req.Adapter = args[0]
			}
			if isTerminal(os.Stderr) && format != "json" {
				last := time.Time{}
				req.Progress = func(p capture.Progress) {
					if time.Since(last) > 100*time.Millisecond || p.Done == p.Total {
						last = time.Now()
						fmt.Fprintf(os.Stderr, "\r%-16s %d/%d sources", p.Adapter, p.Done, p.Total)
						if p.Done == p.Total {
							fmt.Fprintln(os.Stderr)
						}
					}
				}
			}
			rep, err := writerFor(cmd.Context()).Sync(cmd.Context(), req, func(s string) { fmt.Fprintln(cmd.ErrOrStderr(), s) })
			if errors.Is(err, errBusy) {
				return nil
			}
			if err != nil {
				return err
			}
			if err := render(cmd.OutOrStdout(), format, rep, func() string { return syncText(rep) }); err != nil {
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

func syncText(r *capture.Report) string {
	var b strings.Builder
	for _, a := range r.Adapters {
		fmt.Fprintf(&b, "%s", a.Adapter)
		if a.Reason != "" {
			fmt.Fprintf(&b, ": %s (%s)\n", a.Error, a.Reason)
			continue
		}
		if r.DryRun {
			fmt.Fprintf(&b, ": %d sources; would read %d new and %d changed", a.Sources, a.New, a.Updated)
		} else {
			fmt.Fprintf(&b, ": %d sources: %d new, %d updated", a.Sources, a.New, a.Updated)
		}
		if s := a.SortedSkips(); s != "" {
			fmt.Fprintf(&b, ", %s", s)
		}
		fmt.Fprintf(&b, "\n  stored %d sessions, %d messages, %d parts", a.Inserted.Sessions, a.Inserted.Messages, a.Inserted.Parts)
		if a.Matched.Messages+a.Matched.Parts > 0 {
			fmt.Fprintf(&b, " (%d messages, %d parts already stored)", a.Matched.Messages, a.Matched.Parts)
		}
		b.WriteString("\n")
		if a.Named && a.Sources == 0 {
			// Most often a --path one level too deep or too shallow.
			fmt.Fprintf(&b, "  no sessions found under %s; is it the folder the agent itself uses? (pond sync --help)\n", strings.Join(a.Roots, ", "))
		}
		if a.MalformedCount > 0 {
			fmt.Fprintf(&b, "  %d malformed records kept out:\n", a.MalformedCount)
			for i, p := range a.Malformed {
				if i == 10 {
					fmt.Fprintf(&b, "    … %d more (--format json lists up to 100)\n", a.MalformedCount-10)
					break
				}
				fmt.Fprintf(&b, "    %s:%d: %s\n", p.Path, p.Line, p.Error)
			}
		}
		for _, p := range a.Unreadable {
			fmt.Fprintf(&b, "  unreadable: %s: %s\n", p.Path, p.Error)
		}
		if len(a.Unknown) > 0 {
			var kinds []string
			for k, n := range a.Unknown {
				kinds = append(kinds, fmt.Sprintf("%s×%d", k, n))
			}
			sort.Strings(kinds)
			fmt.Fprintf(&b, "  kept as raw records (format drift): %s\n", strings.Join(kinds, ", "))
		}
	}
	fmt.Fprintf(&b, "outcome: %s in %.1fs\n", r.Outcome, r.FinishedAt.Sub(r.StartedAt).Seconds())
	return b.String()
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
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
