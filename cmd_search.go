package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/embed"
	"github.com/pondhq/pond/embed/onnx"
	"github.com/pondhq/pond/store"
)

func newSearchCmd() *cobra.Command {
	var req store.SearchRequest
	var format string
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Find past sessions by what was said in them",
		Long: `search finds messages by their text and lists the sessions they belong to, best first,
with a window of each matching message around the first query word.

Modes:
  fts     (default) full text: every word of the query, stemmed ("failing" finds "failed"); when
          no message has them all, messages with any of them. Chinese, Japanese and Korean text
          is matched by substring.
  vector  semantic: messages closest in meaning, in any language (needs a model: pond model install)
  hybrid  both, fused by reciprocal rank

Search covers what users and assistants wrote, not tool calls or their output; for exact strings
in tool bodies use pond sql. Sub-agent sessions are left out unless --session or an agent
sub-kind (e.g. --agent claude-code/subagent) is given; their hits are grouped under their root
session.

Examples:
  pond search "pgx pool timeout"
  pond search "flaky test" --agent codex-cli --since 2026-11-01
  pond search "rate limit" --project re:^/home/me/(api|web)$ --role user
  pond search "why did the deploy break" --mode hybrid --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Query = args[0]
			res, err := searchRead(cmd.Context(), req)
			if err != nil {
				return err
			}
			return render(cmd.OutOrStdout(), format, res, func() string { return res.Render(store.SearchTextBudget) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Mode, "mode", "fts", "fts, vector or hybrid")
	f.StringVar(&req.Filters.Project, "project", "", "project (cwd) contains this text; re:REGEXP for a regular expression; lit:PATH for exactly PATH")
	f.StringVar(&req.Filters.SessionID, "session", "", "search only this session")
	f.StringVar(&req.Filters.SourceAgent, "agent", "", "only this agent (and its sub-kinds), e.g. claude-code, codex-cli, or a sub-kind claude-code/subagent")
	f.StringVar(&req.Filters.FromDate, "since", "", "from this UTC day on, YYYY-MM-DD (inclusive)")
	f.StringVar(&req.Filters.ToDate, "until", "", "up to the end of this UTC day, YYYY-MM-DD (inclusive)")
	f.StringVar(&req.Filters.Role, "role", "", "only messages of this role: user or assistant")
	f.StringVar(&req.SortBy, "sort", "relevance", "relevance (recency breaks ties) or recency")
	f.IntVar(&req.Limit, "limit", store.DefaultSearchLimit, fmt.Sprintf("sessions to list (1-%d)", store.MaxSearchLimit))
	f.StringVar(&format, "format", "text", "text or json")
	return cmd
}

// useConfiguredEmbedder turns on semantic search with the installed model the config names,
// when the user has turned it on (otherwise the store refuses vector search, saying how to
// turn it on). The model loads when first asked for a vector, so commands that only count
// (pond optimize's diagnosis) never load it.
func useConfiguredEmbedder(s *store.Store) error {
	d, cfg, _, err := loadConfig()
	if err != nil {
		return err
	}
	if !cfg.Embeddings.Enabled || cfg.Embeddings.Model == "" {
		return nil
	}
	in, err := activeModel(d, cfg)
	if err != nil {
		return err
	}
	if err := daemon.InitONNX(d, cfg); err != nil {
		return fmt.Errorf("semantic search: %w (pond doctor checks it)", err)
	}
	s.UseEmbedder(embed.NewLazy(in.Config, func() (embed.Model, error) {
		e, err := onnx.Open(in.Dir)
		if err != nil {
			return nil, fmt.Errorf("semantic search: %w; `pond model verify` checks the installed files", err)
		}
		return e, nil
	}, 0))
	return nil
}

// readError maps the store's read errors onto exit codes: 1 for something not stored, 2 for
// a request to fix.
func readError(err error) error {
	var ve *store.ValidationError
	switch {
	case errors.As(err, &ve):
		return &exitError{code: 2, err: err}
	case errors.Is(err, store.ErrNotFound):
		return &exitError{code: 1, err: err}
	case errors.Is(err, store.ErrEmbeddingsOff):
		return &exitError{code: 2, err: err}
	}
	return err
}
