// Command pond archives every coding agent's sessions, makes them searchable and restores them.
// This package only wires: it parses the command line, resolves paths and hands over to the
// packages that do the work. Each verb lives in its own cmd_<verb>.go.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/present"
	"github.com/pondhq/pond/resume/terminal"
	"github.com/pondhq/pond/session/view"
)

// Set at build time by the Makefile (-ldflags -X).
var (
	version   = "dev"
	nativeDir = ""
)

// exitError carries a process exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func main() {
	// Everything Pond writes (Lance's files, SQLite's, models, state) is for its user only,
	// whatever umask the shell or the login service gave it (paths.PrivateUmask).
	// The terminals it opens for the user get the umask it started with (resume/terminal).
	terminal.UserUmask = paths.PrivateUmask()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	root := newRootCmd()
	err := root.ExecuteContext(ctx)
	stop()
	if err != nil {
		code, msg := exit(err)
		if msg != "" {
			fmt.Fprintln(os.Stderr, "pond:", present.Escape(msg)) // an error may quote archived text
		}
		os.Exit(code)
	}
}

// exit is the one place an error becomes the process's exit code and message: a command's own
// code (exitError), 2 for a request to fix (a bad parameter, an unknown adapter, a refused
// statement), 75 for a daemon to be restarted, 1 for anything else. The message gets the
// CLI's advice.
func exit(err error) (code int, msg string) {
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err == nil {
			return ee.code, ""
		}
		return ee.code, describe(ee.err)
	}
	var ae *apitype.Error
	switch {
	case errors.Is(err, daemon.ErrMemoryCeiling):
		return daemon.ExitRestart, describe(err)
	case errors.As(err, &ae) && (ae.Code == apitype.CodeValidation || ae.Code == apitype.CodeUnknownAdapter || ae.Code == apitype.CodeRefused):
		return 2, describe(err)
	}
	return 1, describe(err)
}

// describe is err's message with the CLI's advice: the command or flag that fixes it. The
// archive and the daemon say what is wrong, for every face; only this one knows what to type.
func describe(err error) string {
	var ae *apitype.Error
	var me *daemon.ModelError
	advice := ""
	switch {
	case errors.As(err, &me) && me.Runtime:
		advice = " (pond doctor checks it)"
	case errors.As(err, &me):
		advice = "; `pond model verify` checks the installed files"
	case errors.Is(err, ipc.ErrNoDaemon):
		advice = "; start it with `pond daemon`, or run `pond serve --transport stdio`"
	case errors.Is(err, ipc.ErrDaemonRunning):
		advice = "; stop it first, or use it (pond status)"
	case !errors.As(err, &ae):
	case ae.Code == apitype.CodeDeclined:
		advice = "; run `pond consent grant` to capture sessions (`--agent NAME` for one agent)"
	case ae.Message == view.MsgEmbeddingsOff && ae.Code == apitype.CodeValidation:
		advice = ": install a model with `pond model install` to turn it on, or search with --mode fts"
	case ae.Message == view.MsgEmbeddingsOff:
		advice = ": run `pond model install` to download the embedding model and turn it on"
	}
	return err.Error() + advice
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "pond",
		Short: "Local archive and recall for AI coding agents",
		Long: `Pond keeps every session your coding agents write (Claude Code, Codex CLI, Gemini CLI,
OpenCode, Pi, …) in one local archive, after the agents themselves purge them, and lets
people and agents find prior work again.

Start with:
  pond doctor      check that every part Pond needs is installed
  pond sync        capture the sessions your agents have written
  pond status      see what the archive holds`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	addGlobalFlags(root)
	root.AddCommand(newVersionCmd(), newDoctorCmd(), newSyncCmd(), newStatusCmd(), newAdaptersCmd(), newConsentCmd(),
		newConfigCmd(), newSQLCmd(), newExportCmd(), newImportCmd(), newMirrorCmd(),
		newSearchCmd(), newGetSessionCmd(), newGetMessageCmd(), newModelCmd(), newOptimizeCmd(), newEraseCmd(), newPrivacyCmd(), newRedactCmd(),
		newDaemonCmd(), newMCPCmd(), newServeCmd(), newResumeCmd(), newCopyCmd())
	root.AddCommand(newInstallCmd(), newUninstallCmd(), newServiceCmd(), newStorageCmd())
	root.AddCommand(desktopCmds()...)
	return root
}
