package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/embed/onnx"
	"github.com/pondhq/pond/store"
)

// OptimizeReport is what `pond optimize` did.
type OptimizeReport struct {
	Embed  *store.BackfillReport `json:"embed,omitempty"`
	Tables []store.TableUpkeep `json:"tables,omitempty"`
	// TextIndex says what became of Lance's text index (built past 20,000 messages, then kept
	// caught up); VectorIndex whether the vector index exists (built past 100,000 vectors).
	TextIndex   string `json:"text_index,omitempty"`
	VectorIndex *bool  `json:"vector_index,omitempty"`
}

func (r OptimizeReport) text() string {
	var b strings.Builder
	if e := r.Embed; e != nil {
		fmt.Fprintf(&b, "embedded %d messages with %s in %.1fs", e.Embedded, e.Model, e.Elapsed.Seconds())
		if e.Embedded > 0 {
			fmt.Fprintf(&b, " (%.1f messages/s)", float64(e.Embedded)/e.Elapsed.Seconds())
		}
		if e.Truncated > 0 {
			fmt.Fprintf(&b, "; %d long messages embedded from their first tokens only", e.Truncated)
		}
		if e.Remaining > 0 {
			fmt.Fprintf(&b, "; %d still to embed", e.Remaining)
		}
		b.WriteString("\n")
	}
	for _, t := range r.Tables {
		fmt.Fprintf(&b, "%-9s fragments %d -> %d\n", t.Table, t.FragmentsBefore, t.FragmentsAfter)
	}
	if r.TextIndex != "" {
		b.WriteString(r.TextIndex + "\n")
	}
	if r.VectorIndex != nil {
		state := "exact search (too few vectors for an index yet)"
		if *r.VectorIndex {
			state = "indexed"
		}
		fmt.Fprintf(&b, "vector search: %s\n", state)
	}
	return b.String()
}

func newOptimizeCmd() *cobra.Command {
	var embedRows, force, skipTables bool
	var batch int
	var format string
	cmd := &cobra.Command{
		Use:   "optimize",
		Short: "Compact the archive's tables; with --embed, embed messages for semantic search",
		Long: `optimize compacts the Lance tables (many small appends become few large fragments), folds new
rows into the indexes and drops table versions older than a week.

--embed first embeds every message that has no vector yet with the installed model (see
` + "`pond model install`" + `), in batches: each batch is committed as it is done, so Ctrl-C stops
after the current batch and the next run goes on from there. Full-text search keeps working
meanwhile. --force-embed also re-embeds messages that another model embedded, after you change
models.

Examples:
  pond optimize
  pond optimize --embed
  pond optimize --force-embed --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			d, cfg, _, err := loadConfig()
			if err != nil {
				return err
			}
			var rep OptimizeReport
			s, err := openStore(ctx, "pond optimize")
			if err != nil {
				return err
			}
			defer s.Close()
			if embedRows || force {
				in, err := activeModel(d, cfg)
				if err != nil {
					return err
				}
				if err := initONNX(d, cfg); err != nil {
					return err
				}
				e, err := onnx.Open(in.Dir)
				if err != nil {
					return fmt.Errorf("%w; `pond model verify` checks the installed files", err)
				}
				defer e.Close()
				opts := store.BackfillOptions{Force: force, BatchRows: batch}
				if isTerminal(os.Stderr) && format != "json" {
					start := time.Now()
					opts.Progress = func(p store.BackfillProgress) {
						rate := float64(p.Done) / max(time.Since(start).Seconds(), 0.001)
						eta := time.Duration(float64(p.Total-p.Done)/max(rate, 0.001)) * time.Second
						fmt.Fprintf(os.Stderr, "\rembedding %d/%d messages, %.1f/s, about %s left   ", p.Done, p.Total, rate, eta.Round(time.Second))
						if p.Done == p.Total {
							fmt.Fprintln(os.Stderr)
						}
					}
				}
				br, err := s.Backfill(ctx, e, opts)
				rep.Embed = &br
				if err != nil {
					if errors.Is(err, ctx.Err()) && ctx.Err() != nil {
						fmt.Fprintln(os.Stderr)
						return &exitError{code: 130, err: fmt.Errorf("interrupted after embedding %d messages; %d still to embed: run the same command again to go on", br.Embedded, br.Remaining)}
					}
					return err
				}
			}
			if !skipTables {
				up, err := s.Upkeep(ctx, store.UpkeepOptions{Steps: []store.Step{store.StepCompact, store.StepIndex, store.StepPrune}})
				if err != nil {
					return err
				}
				rep.Tables = up.Tables
				if rep.TextIndex, err = s.MaintainTextIndex(ctx, true); err != nil {
					return err
				}
				indexed, err := s.EnsureVectorIndex(ctx)
				if err != nil {
					return err
				}
				rep.VectorIndex = &indexed
			}
			return render(cmd.OutOrStdout(), format, rep, rep.text)
		},
	}
	cmd.Flags().BoolVar(&embedRows, "embed", false, "embed messages that have no vector yet (needs an installed model: pond model install)")
	cmd.Flags().BoolVar(&force, "force-embed", false, "also re-embed messages another model embedded")
	cmd.Flags().IntVar(&batch, "batch", 256, "messages embedded and committed at once")
	cmd.Flags().BoolVar(&skipTables, "embed-only", false, "skip compaction: only embed")
	addFormatFlag(cmd, &format)
	return cmd
}
