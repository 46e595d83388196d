package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/internal/atomicfile"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/paths"
)

func newExportCmd() *cobra.Command {
	var format, out string
	var force bool
	var sessions []string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the archive (or some sessions) as canonical JSONL",
		Long: `export writes every stored session, or those named with --session, as canonical JSONL:
one JSON object per line, a session followed by its messages, each message followed by its
parts. pond import reads it back losslessly, into this archive or a fresh one.

Examples:
  pond export -o pond-backup.jsonl           (refuses an existing file)
  pond export -o pond-backup.jsonl --force   (replaces it)
  pond export --session 0a1b2c3d-... > one-session.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "jsonl" {
				return &exitError{code: 2, err: fmt.Errorf("unknown --format %q (only jsonl)", format)}
			}
			api, closeAPI, err := archive(cmd.Context(), "pond export", daemon.LocalOptions{Archive: true})
			if err != nil {
				return err
			}
			defer closeAPI()
			var w io.Writer = cmd.OutOrStdout()
			var f *atomicfile.File
			if out != "" && out != "-" {
				// The export is written beside its target and renamed over it only once it is
				// complete and on disk: an interrupted export never leaves half a file under
				// the name.
				if f, err = atomicfile.Create(out, paths.FileMode, force); err != nil {
					if errors.Is(err, atomicfile.ErrExists) {
						return &exitError{code: 2, err: fmt.Errorf("%s already exists; pass --force to replace it", out)}
					}
					return err
				}
				defer f.Close()
				w = bufio.NewWriterSize(f, 1<<20)
			}
			sum, err := api.Export(cmd.Context(), &apitype.ExportRequest{Sessions: sessions}, w)
			if err != nil {
				return err
			}
			if f != nil {
				if err := w.(*bufio.Writer).Flush(); err != nil {
					return err
				}
				if err := f.Commit(); err != nil {
					if errors.Is(err, atomicfile.ErrExists) {
						return &exitError{code: 2, err: fmt.Errorf("%s was created while the export ran; pass --force to replace it", out)}
					}
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "exported %d sessions to %s\n", sum.Sessions, out)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "jsonl", "output format (jsonl)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "file to write (default: standard output)")
	cmd.Flags().BoolVar(&force, "force", false, "replace the --output file if it exists")
	cmd.Flags().StringArrayVar(&sessions, "session", nil, "export only this session (repeatable)")
	return cmd
}
