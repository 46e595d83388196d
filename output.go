package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/present"
)

// addFormatFlag adds the --format flag every command that reports something has.
func addFormatFlag(cmd *cobra.Command, format *string) {
	cmd.Flags().StringVar(format, "format", "text", "output format: text or json")
}

// render writes v as indented JSON for --format json (exact), or text() for people, with the
// control characters of archived text escaped (present.Escape) so they cannot drive the
// terminal.
func render(w io.Writer, format string, v any, text func() string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	case "text", "":
		_, err := io.WriteString(w, present.Escape(text()))
		return err
	default:
		return &exitError{code: 2, err: fmt.Errorf("unknown --format %q (want text or json)", format)}
	}
}
