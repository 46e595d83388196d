package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/ipc/apitype"
)

func newMirrorCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mirror",
		Short: "Maintain the SQLite mirror (the SQL surface)",
	}
	var format string
	rebuild := &cobra.Command{
		Use:   "rebuild",
		Short: "Recreate the SQLite mirror from the Lance tables",
		Args:  cobra.NoArgs,
		Long: `rebuild recreates the SQLite mirror (the read-only SQL surface) from the Lance tables, into
a new file that replaces the old one when complete. While pond daemon runs, the daemon does it.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			api, closeAPI, err := archive(cmd.Context(), "pond mirror rebuild", daemon.LocalOptions{Archive: true})
			if err != nil {
				return err
			}
			defer closeAPI()
			c, err := api.RebuildMirror(cmd.Context(), &apitype.MirrorRebuildRequest{})
			if err != nil {
				return err
			}
			return render(cmd.OutOrStdout(), format, c, func() string {
				return fmt.Sprintf("mirror rebuilt: %d sessions, %d messages, %d parts\n", c.Sessions, c.Messages, c.Parts)
			})
		},
	}
	addFormatFlag(rebuild, &format)
	cmd.AddCommand(rebuild)
	return cmd
}
