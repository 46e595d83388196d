package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

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
				_, err := io.WriteString(cmd.OutOrStdout(), sqlite.SchemaDoc)
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
			// Opening the mirror for writing first brings its layout (views, helpers) up to date,
			// and gives a new archive empty tables to query.
			path := filepath.Join(d.Data.Path, "mirror.db")
			if err := os.MkdirAll(d.Data.Path, 0o700); err != nil {
				return err
			}
			m, err := sqlite.OpenMirror(cmd.Context(), path)
			if err != nil {
				return err
			}
			m.Close()
			r, err := sqlite.OpenReader(path)
			if err != nil {
				return err
			}
			defer r.Close()
			if format == "ndjson" || format == "csv" || format == "parquet" {
				return exportSQL(cmd, r, args[0], format, output, filepath.Join(d.Data.Path, "exports"), time.Duration(timeout)*time.Second)
			}
			res, err := r.Query(cmd.Context(), args[0], sqlite.Options{Limit: limit, Timeout: time.Duration(timeout) * time.Second})
			if errors.Is(err, sqlite.ErrRefused) {
				return &exitError{code: 2, err: err}
			}
			if err != nil {
				return err
			}
			return render(cmd.OutOrStdout(), format, res, func() string { return sqlText(res) })
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
func exportSQL(cmd *cobra.Command, r *sqlite.Reader, q, format, output, exportsDir string, timeout time.Duration) error {
	var w io.Writer = cmd.OutOrStdout()
	path := output
	var f *os.File
	if output != "-" {
		if path == "" {
			if err := os.MkdirAll(exportsDir, 0o700); err != nil {
				return err
			}
			path = filepath.Join(exportsDir, time.Now().UTC().Format("20060102T150405.000000Z")+"."+format)
		}
		var err error
		if f, err = os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	sum, err := r.Export(cmd.Context(), q, format, timeout, w)
	if errors.Is(err, sqlite.ErrRefused) {
		if f != nil {
			os.Remove(path)
		}
		return &exitError{code: 2, err: err}
	}
	if err != nil {
		if f != nil {
			os.Remove(path)
		}
		return err
	}
	if f != nil {
		if err := f.Close(); err != nil {
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

// sqlText renders a result as an aligned table within the text budget.
func sqlText(res *sqlite.Result) string {
	cols := res.Columns
	cells := make([][]string, len(res.Rows))
	width := make([]int, len(cols))
	for i, c := range cols {
		width[i] = len(c)
	}
	for r, row := range res.Rows {
		cells[r] = make([]string, len(cols))
		for i, c := range cols {
			v, ok := row[c]
			s := "NULL"
			if ok {
				s = strings.ReplaceAll(fmt.Sprint(v), "\n", `\n`)
			}
			cells[r][i] = s
			width[i] = max(width[i], min(len(s), 80))
		}
	}
	var b strings.Builder
	line := func(vals []string) {
		for i, v := range vals {
			if i > 0 {
				b.WriteString(" | ")
			}
			fmt.Fprintf(&b, "%-*s", width[i], v)
		}
		b.WriteString("\n")
	}
	line(cols)
	sep := make([]string, len(cols))
	for i := range sep {
		sep[i] = strings.Repeat("-", width[i])
	}
	line(sep)
	shown := 0
	for _, row := range cells {
		if b.Len() > sqlite.TextBudget {
			break
		}
		line(row)
		shown++
	}
	fmt.Fprintf(&b, "%d rows in %d ms", res.RowCount, res.ElapsedMs)
	if shown < res.RowCount {
		fmt.Fprintf(&b, "; showing %d (text budget)", shown)
	}
	if res.Truncated {
		b.WriteString("; more rows exist: raise --limit or page with WHERE key > last")
	}
	if res.Clipped > 0 {
		fmt.Fprintf(&b, "; %d cells clipped at %d characters", res.Clipped, sqlite.CellChars)
	}
	b.WriteString("\n")
	return b.String()
}
