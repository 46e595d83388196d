package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/present"
)

func newImportCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Store sessions from canonical JSONL (as pond export writes it)",
		Long: `import reads canonical JSONL from FILE (or - for standard input) and stores it. Keys already
stored are left alone, so importing twice changes nothing. A line that is not a valid event is
counted and reported; the rest is imported.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var r io.Reader = cmd.InOrStdin()
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				r = f
			}
			api, closeAPI, err := archive(cmd.Context(), "pond import", daemon.LocalOptions{Archive: true})
			if err != nil {
				return err
			}
			defer closeAPI()
			sum, err := api.Import(cmd.Context(), &apitype.ImportRequest{Events: r})
			if err != nil {
				return err
			}
			return render(cmd.OutOrStdout(), format, sum, func() string { return present.Import(sum) })
		},
	}
	addFormatFlag(cmd, &format)
	return cmd
}
