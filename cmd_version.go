package main

import (
	"github.com/spf13/cobra"
)

func newVersionCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the versions of Pond and the components built into it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r := collectReport(cmd.Context(), false)
			return render(cmd.OutOrStdout(), format, r.Versions, func() string { return r.Versions.text() })
		},
	}
	addFormatFlag(cmd, &format)
	return cmd
}
