package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/present"
	"github.com/pondhq/pond/resume"
	"github.com/pondhq/pond/resume/terminal"
)

func newResumeCmd() *cobra.Command {
	var to, outDir, format string
	var launch bool
	cmd := &cobra.Command{
		Use:   "resume SESSION --to AGENT",
		Short: "Write a stored session back into an agent so the work can go on",
		Long: `resume writes a stored session, with its sub-agents, into an agent's own session files and
prints the command that continues it.

Into the agent that recorded it, the restore is native: the records Pond captured are written
back as they were, with the same ids, so the agent sees its own session again. Into another
agent it is foreign: user and assistant text, tool calls and their results are rebuilt in that
agent's format under a new id (the same id every time), after a first note saying where the
session came from; reasoning, attachments and injected context are left out. Each file is
reported native, foreign, or downgraded with the reason.

Files are never overwritten: when one already exists nothing is written. A write that fails
part-way removes what it wrote. Restored files get the current time as their modification time,
so agents that clean up old sessions keep them.

Agents, with the folder each restore writes under (ROOT):
` + restoreTargetsHelp() + `
--out-dir DIR writes under DIR as if it were the agent's folder (ROOT above): good for a look
before the real thing. The default, --out-dir native, writes into the agent's real folder on
this machine, as this shell's environment names it (CLAUDE_CONFIG_DIR, CODEX_HOME, … or the home
folder). When the Pond daemon runs, it writes the files.

Exit codes: 0 restored; 1 the session is not stored; 2 cannot do it (unknown agent, sub-agents
with sub-agents of their own, no agent folder, working directory gone); 3 a target file exists
(nothing written); 4 the write failed (what was written was removed). --format json names the
finer outcome in "status".

Examples:
  pond resume 7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b --to claude-code
  pond resume 7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b --to codex-cli --out-dir /tmp/look
  pond resume ses_0f21b031b0014ZxYbhc4DxjZrb --to pi-coding-agent --launch
  pond sql "SELECT session_id, source_agent, project FROM sessions ORDER BY created_at DESC LIMIT 5"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &exitError{code: 2, err: errors.New("name one stored session: pond resume SESSION --to AGENT (pond sql lists sessions)")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == "" {
				return &exitError{code: 2, err: fmt.Errorf("--to is required: one of %s", strings.Join(resume.Targets(), ", "))}
			}
			if format != "text" && format != "json" {
				return &exitError{code: 2, err: fmt.Errorf("unknown --format %q (want text or json)", format)}
			}
			req, err := resumeRequest(args[0], to, outDir)
			if err != nil {
				return err
			}
			api, closeAPI, err := archive(cmd.Context(), "pond resume", daemon.LocalOptions{Archive: true})
			if err != nil {
				return err
			}
			defer closeAPI()
			// A restore that did not happen comes back as its outcome, with its exit code.
			o, err := api.Resume(cmd.Context(), req)
			if refused, ok := apitype.RefusedRestore(err); ok {
				o, err = refused, nil
			}
			if err != nil {
				return err
			}
			var launched string
			if o.Status == resume.OK && launch {
				launched, err = terminal.Open(o.Argv, o.Cwd, os.Getenv)
				if err != nil && !errors.Is(err, terminal.ErrNoTerminal) {
					fmt.Fprintf(cmd.ErrOrStderr(), "pond: could not open a terminal (%v); run the command yourself\n", err)
				}
			}
			if err := render(cmd.OutOrStdout(), format, o, func() string { return present.Resume(o, launch, launched) }); err != nil {
				return err
			}
			if o.Status != resume.OK {
				msg := o.Message
				if format == "json" {
					msg = "" // the JSON says it
				}
				return &exitError{code: o.Code, err: errors.New(msg)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "agent to restore into: "+strings.Join(resume.Targets(), ", "))
	cmd.Flags().StringVar(&outDir, "out-dir", "native", `folder standing for the agent's own folder, or "native" for the real one`)
	cmd.Flags().BoolVar(&launch, "launch", false, "open the resume command in a new terminal window (printed when none can be found)")
	addFormatFlag(cmd, &format)
	return cmd
}

// resumeRequest resolves the destination here, in the user's environment, whichever process
// writes the files: a relative --out-dir against this working directory, and native to the
// agent's root as this shell's variables (CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME,
// PI_CODING_AGENT_DIR, XDG_DATA_HOME) and home name it. The daemon runs as the same user but, as
// a login service, not with this shell's environment.
func resumeRequest(session, to, outDir string) (*apitype.ResumeRequest, error) {
	req := &apitype.ResumeRequest{Session: session, To: to, OutDir: "native"}
	if outDir != "" && outDir != "native" {
		abs, err := filepath.Abs(outDir)
		if err != nil {
			return nil, err
		}
		req.OutDir = abs
		return req, nil
	}
	if root := resume.NativeRoot(to, adapters.CurrentEnv()); root != "" {
		abs, err := filepath.Abs(root)
		if err != nil {
			return nil, err
		}
		req.Root = abs
	}
	return req, nil
}

// restoreTargetsHelp lists the agents resume writes into, each with its root and, where the
// agent's package says so, where a restore lands instead of the agent's own files.
func restoreTargetsHelp() string {
	targets := resume.Targets()
	width := 0
	for _, name := range targets {
		width = max(width, len(name))
	}
	var b strings.Builder
	for _, a := range all.Adapters() {
		if !slices.Contains(targets, a.Name()) {
			continue
		}
		var d adapters.Description
		if ds, ok := a.(adapters.Describer); ok {
			d = ds.Describe()
		}
		fmt.Fprintf(&b, "  %-*s  %s\n", width, a.Name(), d.Root)
		if d.Restore != "" {
			fmt.Fprintf(&b, "  %-*s  restored as %s\n", width, "", d.Restore)
		}
	}
	return b.String()
}
