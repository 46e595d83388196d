package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/store"
)

func newExportCmd() *cobra.Command {
	var format, out string
	var sessions []string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the archive (or some sessions) as canonical JSONL",
		Long: `export writes every stored session, or those named with --session, as canonical JSONL:
one JSON object per line, a session followed by its messages, each message followed by its
parts. pond import reads it back losslessly, into this archive or a fresh one.

Examples:
  pond export -o pond-backup.jsonl
  pond export --session 0a1b2c3d-... > one-session.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "jsonl" {
				return &exitError{code: 2, err: fmt.Errorf("unknown --format %q (only jsonl)", format)}
			}
			s, err := openStore(cmd.Context(), "pond export")
			if err != nil {
				return err
			}
			defer s.Close()
			var w io.Writer = cmd.OutOrStdout()
			var f *os.File
			if out != "" && out != "-" {
				if f, err = os.CreateTemp(filepath.Dir(out), ".pond-export-*"); err != nil {
					return err
				}
				defer os.Remove(f.Name())
				w = bufio.NewWriterSize(f, 1<<20)
			}
			n, err := s.Export(cmd.Context(), w, sessions)
			if err != nil {
				return err
			}
			if f != nil {
				if err := w.(*bufio.Writer).Flush(); err != nil {
					return err
				}
				if err := f.Close(); err != nil {
					return err
				}
				if err := os.Rename(f.Name(), out); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "exported %d sessions to %s\n", n, out)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "jsonl", "output format (jsonl)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "file to write (default: standard output)")
	cmd.Flags().StringArrayVar(&sessions, "session", nil, "export only this session (repeatable)")
	return cmd
}

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
			s, err := openStore(cmd.Context(), "pond import")
			if err != nil {
				return err
			}
			defer s.Close()
			sum, err := s.Import(cmd.Context(), r, 0, store.Stamp{Adapter: "import", PondVersion: version})
			if err != nil {
				return err
			}
			return render(cmd.OutOrStdout(), format, sum, func() string {
				txt := fmt.Sprintf("imported %d events: %d sessions, %d messages, %d parts new; %d sessions, %d messages, %d parts already stored\n",
					sum.Events, sum.Inserted.Sessions, sum.Inserted.Messages, sum.Inserted.Parts,
					sum.Matched.Sessions, sum.Matched.Messages, sum.Matched.Parts)
				if sum.Malformed > 0 || len(sum.Errors) > 0 {
					txt += fmt.Sprintf("%d malformed lines, %d rejected rows:\n", sum.Malformed, sum.Rejected.Sessions+sum.Rejected.Messages+sum.Rejected.Parts)
					for _, e := range sum.Errors {
						txt += "  " + e + "\n"
					}
				}
				return txt
			})
		},
	}
	addFormatFlag(cmd, &format)
	return cmd
}

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
			c, err := writerFor(cmd.Context()).RebuildMirror(cmd.Context())
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
