package main

import (
	"bufio"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/installer"
)

func newUninstallCmd() *cobra.Command {
	var purge, yes, dryRun bool
	var format string
	cmd := &cobra.Command{
		Use:   "uninstall [--purge [--yes]] [--dry-run]",
		Short: "Stop the daemon and remove what pond install added",
		Long: `uninstall stops the daemon and removes what pond install added: the login service, the tray's
autostart entry, Pond's MCP entry in the agents' configs (with their own command where it is
on PATH; their other entries are left alone) and Pond's recall skill. The archive stays, so a later install picks up where it was.

--purge also deletes Pond's data: the archive (Lance tables, SQL mirror, exports, models), the
state (cursors, logs), the caches, the config file and the runtime folder. It lists them and
asks you to type "purge" first; --yes skips the question (scripts; needed without a terminal).
It refuses a location that is your home folder or above it.

The binary itself stays where it is: delete it yourself.

Examples:
  pond uninstall --dry-run
  pond uninstall
  pond uninstall --purge`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			o, err := installerOptions(cmd, dryRun)
			if err != nil {
				return err
			}
			o.Purge = purge
			if purge && !yes && !dryRun {
				if err := confirmPurge(cmd, installer.PurgeTargets(o.Dirs)); err != nil {
					return err
				}
			}
			return printReport(cmd, format, "uninstall", installer.Uninstall(cmd.Context(), o))
		},
	}
	f := cmd.Flags()
	f.BoolVar(&purge, "purge", false, "also delete the archive, state, caches and config")
	f.BoolVar(&yes, "yes", false, "with --purge: do not ask")
	f.BoolVar(&dryRun, "dry-run", false, "report what would be removed; change nothing")
	addFormatFlag(cmd, &format)
	return cmd
}

// confirmPurge lists what --purge deletes and wants "purge" typed back.
func confirmPurge(cmd *cobra.Command, targets []string) error {
	if len(targets) == 0 {
		return nil // nothing to delete, nothing to ask
	}
	w := cmd.ErrOrStderr()
	fmt.Fprintln(w, "pond uninstall --purge deletes:")
	for _, t := range targets {
		fmt.Fprintln(w, "  "+t)
	}
	fmt.Fprint(w, `Type "purge" to delete them: `)
	line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(w)
		return &exitError{code: 2, err: errors.New("no answer (nothing to read on stdin): nothing was removed; confirm with --yes where no one can type")}
	}
	if strings.TrimSpace(line) != "purge" {
		return &exitError{code: 1, err: errors.New("not confirmed: nothing was removed")}
	}
	return nil
}
