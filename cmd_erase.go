package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/present"
	"github.com/pondhq/pond/session/view"
)

func newEraseCmd() *cobra.Command {
	var req view.EraseRequest
	var before, format string
	var yes, lift bool
	cmd := &cobra.Command{
		Use:   "erase [SESSION…] [--project P] [--agent A --before DATE]",
		Short: "Erase sessions from the archive for good, and keep them from being captured again",
		Long: `Erase removes sessions, their messages, parts, vectors and sub-agent sessions from the archive
and takes their bytes off the disk: the data files that held them are rewritten, the table
versions and index files that still held them are removed (each overwritten first), and the
SQLite mirror is vacuumed. The agent's own files are not touched; so that the next sync does
not capture them again, erased ids go on a denylist (--lift takes an id off it).

Select the sessions by id, or by --project (the folder and those under it), --agent and
--before (created before that date), which combine. --dry-run lists what would go. Without
--yes, erase lists the sessions and asks. Exports under the data directory that hold an
erased session are listed; --exports removes them too.

Examples:
  pond erase 3f2a… --dry-run
  pond erase --project ~/work/client-x --yes
  pond erase --agent codex-cli --before 2026-01-01
  pond erase --lift 3f2a…`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			api, closeAPI, err := archive(ctx, "pond erase", daemon.LocalOptions{Archive: true})
			if err != nil {
				return err
			}
			defer closeAPI()
			if lift {
				if len(args) == 0 {
					return &exitError{code: 2, err: errors.New("--lift needs the session ids to take off the erase list")}
				}
				rep, err := api.Lift(ctx, &apitype.LiftRequest{LiftRequest: view.LiftRequest{Sessions: args}})
				if err != nil {
					return err
				}
				return render(cmd.OutOrStdout(), format, rep, func() string { return present.Lift(rep) })
			}
			req.Sessions = args
			if before != "" {
				t, err := parseDate(before)
				if err != nil {
					return &exitError{code: 2, err: err}
				}
				req.Before = t
			}
			if len(req.Sessions) == 0 && req.Project == "" && req.Agent == "" && req.Before.IsZero() {
				return &exitError{code: 2, err: errors.New("name the sessions to erase, or select them with --project, --agent or --before")}
			}
			if !req.DryRun && !yes {
				plan := req
				plan.DryRun = true
				rep, err := api.Erase(ctx, &apitype.EraseRequest{EraseRequest: plan})
				if err != nil {
					return err
				}
				if len(rep.Sessions) == 0 {
					return render(cmd.OutOrStdout(), format, rep, func() string { return present.Erase(rep) })
				}
				fmt.Fprint(cmd.ErrOrStderr(), present.Erase(rep))
				if err := confirmErase(cmd.InOrStdin(), cmd.ErrOrStderr()); err != nil {
					return err
				}
			}
			var progress func(apitype.Event)
			if isTerminal(os.Stderr) && format != "json" && !req.DryRun {
				progress = eraseProgress(cmd.ErrOrStderr())
			}
			var rep *view.EraseReport
			err = follow(ctx, api, progress, func() (err error) {
				rep, err = api.Erase(ctx, &apitype.EraseRequest{EraseRequest: req})
				return err
			})
			if err != nil {
				if ctx.Err() != nil {
					return &exitError{code: 130, err: errors.New("interrupted: the sessions are on the erase list; run pond erase again (any selection) to finish")}
				}
				return err
			}
			return render(cmd.OutOrStdout(), format, rep, func() string { return present.Erase(rep) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Project, "project", "", "erase the sessions of this project folder and the folders under it")
	f.StringVar(&req.Agent, "agent", "", "erase the sessions of this agent (with --before: only older ones)")
	f.StringVar(&before, "before", "", "erase sessions created before this date (2026-01-31 or RFC 3339)")
	f.BoolVar(&req.DryRun, "dry-run", false, "list what would be erased; change nothing")
	f.BoolVar(&req.Exports, "exports", false, "also remove exports under the data directory that hold an erased session")
	f.BoolVar(&yes, "yes", false, "do not ask")
	f.BoolVar(&lift, "lift", false, "take the ids given off the erase list (their agents' files are captured again)")
	addFormatFlag(cmd, &format)
	return cmd
}

// parseDate reads a day (UTC midnight) or an RFC 3339 time.
func parseDate(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--before %q: want a date (2026-01-31) or an RFC 3339 time", s)
}

// confirmErase wants "yes" typed back.
func confirmErase(in io.Reader, w io.Writer) error {
	fmt.Fprint(w, `Erase these sessions for good? Type "yes": `)
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(w)
		return &exitError{code: 2, err: errors.New("no answer (nothing to read on stdin): nothing was erased; confirm with --yes where no one can type")}
	}
	if strings.TrimSpace(line) != "yes" {
		return &exitError{code: 1, err: errors.New("not confirmed: nothing was erased")}
	}
	return nil
}

// eraseProgress prints each step of an erase on a terminal.
func eraseProgress(w io.Writer) func(apitype.Event) {
	return func(ev apitype.Event) {
		if ev.Type != apitype.EventEraseProgress {
			return
		}
		pl, err := ev.Payload()
		if err != nil {
			return
		}
		p := pl.(*view.EraseProgress)
		if p.Table != "" {
			fmt.Fprintf(w, "%s: %s\n", p.Step, p.Table)
		} else {
			fmt.Fprintln(w, p.Step)
		}
	}
}
