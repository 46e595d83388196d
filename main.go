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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	root := newRootCmd()
	err := root.ExecuteContext(ctx)
	stop()
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			if ee.err != nil && ee.err.Error() != "" {
				fmt.Fprintln(os.Stderr, "pond:", ee.err)
			}
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "pond:", err)
		os.Exit(1)
	}
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
		newSearchCmd(), newGetSessionCmd(), newGetMessageCmd(), newModelCmd(), newOptimizeCmd(),
		newDaemonCmd(), newMCPCmd(), newServeCmd(), newResumeCmd())
	root.AddCommand(newInstallCmd(), newUninstallCmd(), newServiceCmd())
	root.AddCommand(desktopCmds()...)
	return root
}
