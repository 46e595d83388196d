package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/internal/atomicfile"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/present"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store"
	"github.com/pondhq/pond/store/lance"
	"github.com/pondhq/pond/store/objstore"
	"github.com/pondhq/pond/store/transfer"
)

// exitCopyVerify is pond copy's exit code when rows are missing or duplicated at the
// destination (the original's code 6).
const exitCopyVerify = 6

func newCopyCmd() *cobra.Command {
	var from, to, format string
	var verifyOnly, force bool
	cmd := &cobra.Command{
		Use:   "copy --from URL|FILE --to URL|FILE",
		Short: "Copy an archive into another (incremental union), a .pond file or a JSONL stream, and verify it",
		Long: `copy adds to the destination every session, message and part of the source it lacks: sessions
it does not hold are appended whole, sessions that grew since the last copy get only their new
rows, and nothing is duplicated or changed. The source is only read. Afterwards the
destination's indexes are brought up to date, and the copy is verified key by key: every row of
the source present exactly once at the destination (exit code 6 otherwise).

Either side is one of:
  @ (or local)           this Pond's archive (its [storage] path or --storage-path)
  PATH                   a folder of Lance tables, or a Pond data folder holding lance/
  s3://bucket/prefix     an S3 store (credentials from the AWS environment)
  s3+http(s)://host:port/bucket/prefix   an S3-compatible server
  FILE.pond              one portable file holding an archive (a zstd tar of its Lance tables
                         and a manifest: format and layout versions, Pond version, row counts,
                         embedding model); copying into an existing one adds to it
  FILE.jsonl or -        (--to only) canonical JSONL, as pond export writes it; read it back
                         with pond import

Copied rows keep their capture record (options.pond.ingest), and copied messages their vectors
(the destination's daemon, or pond optimize --embed, embeds the rest with its own model).
Sessions the destination erased are left out (and counted as erased, not missing). Sessions
the source erased are not copied, and go on the destination's erase list, so no machine
writing it captures them again; where the destination holds one, copy names it and leaves it.

A running daemon is the only writer of its archive: copy refuses to write into this Pond's
archive while the daemon runs (stop it with pond service stop, or copy into another location).
Copying into a store other machines' daemons are writing at the same time is not supported.

Exit codes: 0 copied and verified, 1 an error, 2 a location that does not parse or cannot be
used that way, 6 rows missing or duplicated at the destination.

Examples:
  pond copy --from @ --to ~/backups/pond-2026-12.pond
  pond copy --from ~/backups/pond-2026-12.pond --to @
  pond copy --from @ --to s3://team-bucket/pond
  pond copy --from @ --to s3://team-bucket/pond --verify-only
  pond copy --from @ --to - | gzip > pond.jsonl.gz`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" || to == "" {
				return &exitError{code: 2, err: errors.New("copy needs --from and --to (@ names this Pond's archive)")}
			}
			if format != "text" && format != "json" {
				return &exitError{code: 2, err: fmt.Errorf("unknown --format %q (want text or json)", format)}
			}
			return runCopy(cmd, from, to, format, verifyOnly, force)
		},
	}
	f := cmd.Flags()
	f.StringVar(&from, "from", "", "the archive to copy: @, a path, a URL or a .pond file")
	f.StringVar(&to, "to", "", "where to copy it: @, a path, a URL, a .pond file, a .jsonl file or - (standard output)")
	f.BoolVar(&verifyOnly, "verify-only", false, "copy nothing: check that every row of --from is at --to once (exit 6 if not)")
	f.BoolVar(&force, "force", false, "replace an existing .jsonl file")
	addFormatFlag(cmd, &format)
	return cmd
}

func runCopy(cmd *cobra.Command, from, to, format string, verifyOnly, force bool) error {
	ctx := cmd.Context()
	d, err := resolveDirs()
	if err != nil {
		return err
	}
	own, err := daemon.StoreOptions(d, "pond copy", logger())
	if err != nil {
		return err
	}
	storage := own.Storage
	configured := lance.LocalDir(paths.LanceDir(d.Data.Path))
	if storage != "" && storage != "local" && storage != "default" {
		if configured, err = lance.ParseLocation(storage); err != nil {
			return err
		}
	}
	src, err := transfer.Parse(from, configured)
	if err != nil {
		return copyParseError("--from", err)
	}
	dst, err := transfer.Parse(to, configured)
	if err != nil {
		return copyParseError("--to", err)
	}
	switch {
	case transfer.Same(src, dst):
		return &exitError{code: 2, err: fmt.Errorf("--from and --to name the same archive (%s)", src)}
	case src.Kind == transfer.KindStream:
		return &exitError{code: 2, err: fmt.Errorf("a JSONL stream is written by pond copy, not read: import %s with `pond import`", src)}
	case dst.Kind == transfer.KindStream && verifyOnly:
		return &exitError{code: 2, err: errors.New("--verify-only checks an archive; a JSONL stream is not one")}
	case dst.Configured && !verifyOnly:
		if c, err := ipc.Connect(ctx, ipc.APISocket(d.Runtime.Path)); err == nil {
			c.Close()
			return errors.New("a Pond daemon is running on this archive and is its only writer: stop it (pond service stop) and copy again, or copy into another location")
		}
	}
	if err := paths.MkdirPrivate(d.Cache.Path); err != nil {
		return err
	}
	scratch, err := os.MkdirTemp(d.Cache.Path, "copy-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	env := transfer.Env{Scratch: scratch, PondVersion: version, Logger: logger(),
		Configured: own}

	source, err := transfer.OpenSource(ctx, src, env)
	if err != nil {
		return err
	}
	defer source.Close()
	if dst.Kind == transfer.KindStream {
		return exportStream(cmd, source.Store, dst, force)
	}
	dest, err := transfer.OpenDestination(ctx, dst, env, verifyOnly)
	if err != nil {
		return err
	}
	defer dest.Close()

	rep := &view.CopyReport{From: src.String(), To: dst.String(), Upkeep: []view.Step{}}
	if verifyOnly {
		if rep.Verification, err = transfer.Verify(ctx, source.Store, dest.Store); err != nil {
			return err
		}
	} else {
		opts := transfer.Options{PondVersion: version}
		if dst.Kind == transfer.KindArchive {
			opts.KeepVersions = -1 // a .pond file keeps no replaced versions: nobody reads them
		}
		if isTerminal(os.Stderr) && format != "json" {
			opts.Progress = copyProgress(os.Stderr)
		}
		got, err := transfer.Copy(ctx, source.Store, dest.Store, opts)
		if err != nil {
			if ctx.Err() != nil {
				return &exitError{code: 130, err: errors.New("interrupted: what was copied is kept; run the same command again to go on")}
			}
			return err
		}
		got.From, got.To = rep.From, rep.To
		rep = got
		if err := dest.Finish(ctx); err != nil {
			return err
		}
	}
	if err := render(cmd.OutOrStdout(), format, rep, func() string { return present.Copy(rep) }); err != nil {
		return err
	}
	if !rep.Verification.OK {
		return &exitError{code: exitCopyVerify}
	}
	return nil
}

func copyParseError(flag string, err error) error {
	if errors.Is(err, objstore.ErrParse) {
		return &exitError{code: 2, err: fmt.Errorf("%s: %w", flag, err)}
	}
	return fmt.Errorf("%s: %w", flag, err)
}

// exportStream writes the source as canonical JSONL (pond export's format) to standard output
// or a .jsonl file, replaced only when complete.
func exportStream(cmd *cobra.Command, s *store.Store, dst transfer.Endpoint, force bool) error {
	var w io.Writer = cmd.OutOrStdout()
	var f *atomicfile.File
	if dst.Path != "-" {
		var err error
		if f, err = atomicfile.Create(dst.Path, paths.FileMode, force); err != nil {
			if errors.Is(err, atomicfile.ErrExists) {
				return &exitError{code: 2, err: fmt.Errorf("%s already exists; pass --force to replace it", dst.Path)}
			}
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	n, err := s.Export(cmd.Context(), bw, nil)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && f != nil {
		err = f.Commit()
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "exported %d sessions to %s\n", n, dst)
	return nil
}

// copyProgress draws pond copy's progress on a terminal.
func copyProgress(w io.Writer) func(view.CopyProgress) {
	start := time.Now()
	last := time.Time{}
	inLine := false
	return func(p view.CopyProgress) {
		if p.Phase != "copy" {
			if inLine {
				fmt.Fprintln(w)
				inLine = false
			}
			fmt.Fprintf(w, "%s…\n", p.Phase)
			return
		}
		if time.Since(last) < 100*time.Millisecond && p.Done != p.Total {
			return
		}
		last = time.Now()
		rate := float64(p.Messages) / max(time.Since(start).Seconds(), 0.001)
		fmt.Fprintf(w, "\rcopying %d/%d sessions, %d messages, %.0f messages/s   ", p.Done, p.Total, p.Messages, rate)
		inLine = true
	}
}
