//go:build !headless

package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/app/desktop"
	"github.com/pondhq/pond/installer/service"
)

// desktopCmds are the commands of the desktop app, which only the full build holds (the
// headless build's are in cmd_tray_headless.go).
func desktopCmds() []*cobra.Command {
	var open, query string
	cmd := &cobra.Command{
		Use:   "tray",
		Short: "The desktop app: a tray icon with capture status, search, transcripts and resume",
		Long: "tray shows Pond in the system tray and opens its windows (search, transcripts, consent, adapters, settings)\n" +
			"on demand. It talks to the daemon (pond daemon) and never opens the archive itself; quitting it\n" +
			"leaves the daemon running. One tray runs per user session.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := resolveDirs()
			if err != nil {
				return err
			}
			exe, _ := service.Executable()
			err = desktop.Run(cmd.Context(), desktop.Options{Dirs: d, Exe: exe, Version: version, Open: open, Query: query, Log: logger()})
			if errors.Is(err, desktop.ErrRunning) {
				return &exitError{code: 3, err: err}
			}
			return err
		},
	}
	cmd.Flags().StringVar(&open, "open", "", "window to open at start: search, transcript, resume, erase (the search's first result), consent, adapters, settings or privacy (its tab)")
	cmd.Flags().StringVar(&query, "query", "", "query to type into the search window at start")
	cmd.Flags().MarkHidden("open")
	cmd.Flags().MarkHidden("query")
	return []*cobra.Command{cmd}
}

// desktopBuilt: this build holds the desktop app, so install may start `pond tray` at login.
const desktopBuilt = true
