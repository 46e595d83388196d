package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/internal/atomicfile"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/present"
	"github.com/pondhq/pond/store/sqlite"
)

func newSQLCmd() *cobra.Command {
	var format string
	var limit, timeout int
	var schema bool
	var output string
	cmd := &cobra.Command{
		Use:   "sql QUERY | sql --schema",
		Short: "Run one read-only SQL query over the archive's SQLite mirror",
		Long: `sql runs exactly one SELECT, WITH or EXPLAIN statement against the SQLite mirror of the
archive: tables sessions, messages and parts, with the original system's column names. It is
read-only by construction (a read-only connection and an authorizer that refuses every write,
ATTACH, PRAGMA and extension); a refused statement exits 2 with the reason.

Examples:
  pond sql "SELECT source_agent, count(*) FROM sessions GROUP BY 1"
  pond sql "SELECT tool_name, avg(is_failure) FROM parts WHERE type = 'tool_result' GROUP BY 1"
  pond sql --format json "SELECT * FROM messages WHERE search_text LIKE '%migration%' LIMIT 5"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if schema {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if schema {
				_, err := io.WriteString(cmd.OutOrStdout(), present.SQLSchema)
				return err
			}
			switch format {
			case "text", "json", "ndjson", "csv", "parquet":
			default:
				return &exitError{code: 2, err: fmt.Errorf("unknown --format %q (want text, json, ndjson, csv or parquet)", format)}
			}
			d, err := resolveDirs()
			if err != nil {
				return err
			}
			// The archive, not only the mirror: messages.options is read from its Lance table.
			api, closeAPI, err := archive(cmd.Context(), "pond sql", daemon.LocalOptions{Archive: true})
			if err != nil {
				return err
			}
			defer closeAPI()
			if format == "ndjson" || format == "csv" || format == "parquet" {
				req := &apitype.SQLExportRequest{Query: args[0], Format: format, TimeoutSeconds: timeout}
				return exportSQL(cmd, api, req, output, paths.ExportsDir(d.Data.Path))
			}
			res, err := api.SQL(cmd.Context(), &apitype.SQLRequest{Query: args[0], Limit: min(max(limit, 0), sqlite.MaxRows), TimeoutSeconds: timeout})
			if err != nil {
				return statementError(err)
			}
			return render(cmd.OutOrStdout(), format, res, func() string { return present.SQL(res, sqlite.TextBudget, sqlite.CellChars) })
		},
	}
	cmd.Flags().IntVar(&limit, "limit", sqlite.DefaultRows, fmt.Sprintf("rows to show (at most %d)", sqlite.MaxRows))
	cmd.Flags().IntVar(&timeout, "timeout", int(sqlite.DefaultTimeout.Seconds()), fmt.Sprintf("seconds before the query is stopped (at most %d)", int(sqlite.MaxTimeout.Seconds())))
	cmd.Flags().BoolVar(&schema, "schema", false, "print the tables, views, functions and worked examples")
	cmd.Flags().StringVarP(&output, "output", "o", "", "with --format ndjson|csv|parquet: the file to write (- for standard output; default: a new file in the data directory's exports/)")
	cmd.Flags().StringVar(&format, "format", "text", "text or json (inline, row-capped); ndjson, csv or parquet (every row, to a file, at most 100 MiB)")
	return cmd
}

// exportSQL writes a query's whole result to a file (or standard output).
func exportSQL(cmd *cobra.Command, api ipc.API, req *apitype.SQLExportRequest, output, exportsDir string) error {
	var w io.Writer = cmd.OutOrStdout()
	path := output
	var f *atomicfile.File
	if output != "-" {
		if path == "" {
			if err := os.MkdirAll(exportsDir, 0o700); err != nil {
				return err
			}
			path = filepath.Join(exportsDir, time.Now().UTC().Format("20060102T150405.000000Z")+"."+req.Format)
		}
		// Written beside the target and committed whole: an interrupted export leaves no
		// partial file, and an existing one is never replaced.
		var err error
		if f, err = atomicfile.Create(path, 0o600, false); err != nil {
			if errors.Is(err, atomicfile.ErrExists) {
				return &exitError{code: 2, err: fmt.Errorf("%s already exists; name a new file with -o", path)}
			}
			return err
		}
		defer f.Close()
		w = f
	}
	sum, err := api.SQLExport(cmd.Context(), req, w)
	if err != nil {
		return statementError(err)
	}
	if f != nil {
		if err := f.Commit(); err != nil {
			if errors.Is(err, atomicfile.ErrExists) {
				return &exitError{code: 2, err: fmt.Errorf("%s was created while the query ran; name a new file with -o", path)}
			}
			return err
		}
		note := ""
		if sum.Truncated {
			note = " (stopped at the 100 MiB cap)"
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "wrote %d rows, %d bytes to %s%s\n", sum.Rows, sum.Bytes, path, note)
	}
	return nil
}

// statementError keeps pond sql's exit codes: a statement the read-only gate refuses exits 2,
// one SQLite cannot run (a typo, a missing column, a timeout) 1.
func statementError(err error) error {
	var ae *apitype.Error
	if errors.As(err, &ae) && ae.Code == apitype.CodeValidation {
		return &exitError{code: 1, err: err}
	}
	return err
}
