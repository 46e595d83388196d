package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/present"
	"github.com/pondhq/pond/session/view"
)

func newOptimizeCmd() *cobra.Command {
	var runDue, embedRows, force, compact, index, prune bool
	var keep time.Duration
	var batch int
	var format string
	cmd := &cobra.Command{
		Use:   "optimize",
		Short: "Show what upkeep the archive needs; --run (or a step's flag) does it",
		Long: `Live capture commits often: every commit leaves a table version and a small fragment, and new
messages wait to be embedded and indexed. A running daemon does this upkeep by itself; optimize
shows it and does it on request, through the daemon when one runs.

With no flags, optimize measures (cheaply: no scan of texts or vectors) and prints what needs
doing, each with the command that does it. --run does every step that is due; a step's flag
runs that step whatever the measurements say:

  --embed     embed the messages that have no vector yet with the installed model (see
              ` + "`pond model install`" + `), in batches, each committed as it is done: Ctrl-C stops
              after the current batch and the next run goes on from there. Full-text search
              keeps working meanwhile. --force-embed also re-embeds messages another model
              embedded, after you change models.
  --compact   merge small fragments (up to 100,000 rows each)
  --index     fold new rows into the full-text and vector indexes; build the text index past
              20,000 messages and the vector index from 100,000 embedded ones
  --prune     remove the table versions replaced longer ago than --keep-versions. By
              default a local archive's go as soon as no Pond process reads them (a read
              keeps the versions it may be on), and an object store's after 2m, for reads
              other machines began on them

Examples:
  pond optimize
  pond optimize --run
  pond optimize --embed
  pond optimize --compact --prune --keep-versions 10m
  pond optimize --force-embed --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			req := &apitype.OptimizeRequest{ForceEmbed: force, BatchRows: batch}
			for i, on := range []bool{embedRows, compact, index, prune} {
				if on {
					req.Steps = append(req.Steps, string(view.Steps[i]))
				}
			}
			req.DryRun = len(req.Steps) == 0 && !force && !runDue
			if keep < 0 {
				return &exitError{code: 2, err: errors.New("--keep-versions must be 0 or more")}
			}
			if cmd.Flags().Changed("keep-versions") {
				secs := int64(keep / time.Second)
				req.KeepVersionsSecs = &secs
			}
			var progress func(apitype.Event)
			if isTerminal(os.Stderr) && format != "json" && !req.DryRun {
				progress = upkeepProgress(os.Stderr)
			}
			// Without a daemon, a model that cannot run fails only a run that embeds.
			var modelErr error
			api, closeAPI, err := archive(ctx, "pond optimize", daemon.LocalOptions{Archive: true, Model: true,
				OnModelError: func(err error) { modelErr = err }})
			if err != nil {
				return err
			}
			defer closeAPI()
			if modelErr != nil {
				if force || embedRows {
					return modelErr
				}
				fmt.Fprintln(cmd.ErrOrStderr(), describe(modelErr)+"; going on without embedding")
			}
			var resp *apitype.OptimizeResponse
			err = follow(ctx, api, progress, func() (err error) { resp, err = api.Optimize(ctx, req); return err })
			if err != nil {
				if ctx.Err() != nil {
					return &exitError{code: 130, err: errors.New("interrupted: what was done is kept; run the same command again to go on")}
				}
				return err
			}
			return render(cmd.OutOrStdout(), format, resp, func() string { return present.Optimize(resp.Diagnosis, resp.Report) })
		},
	}
	f := cmd.Flags()
	f.BoolVar(&runDue, "run", false, "run every step that is due")
	f.BoolVar(&embedRows, "embed", false, "embed messages that have no vector yet (needs an installed model: pond model install)")
	f.BoolVar(&force, "force-embed", false, "also re-embed messages another model embedded (implies --embed)")
	f.BoolVar(&compact, "compact", false, "merge small fragments")
	f.BoolVar(&index, "index", false, "fold new rows into the indexes; build them once the archive is large enough")
	f.BoolVar(&prune, "prune", false, "remove the table versions replaced longer ago than --keep-versions")
	f.DurationVar(&keep, "keep-versions", 0, "versions replaced longer ago than this count as old (default: none kept on local disk but those being read, 2m on an object store)")
	f.IntVar(&batch, "batch", 256, "messages embedded and committed at once")
	addFormatFlag(cmd, &format)
	return cmd
}
