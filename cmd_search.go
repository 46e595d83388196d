package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/present"
	"github.com/pondhq/pond/session/view"
)

func newSearchCmd() *cobra.Command {
	var req view.SearchRequest
	var project, format string
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
session. Words that over 20,000 messages hold are ranked by a text index that upkeep
builds (the daemon runs it, or pond optimize --run); until it exists, as after a first sync,
their newest matches come first, and a note says so.

Examples:
  pond search "pgx pool timeout"
  pond search "flaky test" --agent codex-cli --since 2026-11-01
  pond search "rate limit" --project re:^/home/me/(api|web)$ --role user
  pond search "why did the deploy break" --mode hybrid --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			req.Query, req.Filters.Project = args[0], view.ProjectFilter(project)
			semantic := req.Mode == view.ModeVector || req.Mode == view.ModeHybrid
			api, closeAPI, err := archive(ctx, "pond search", daemon.LocalOptions{Archive: true, Model: semantic})
			if err != nil {
				return err
			}
			defer closeAPI()
			res, err := api.Search(ctx, &apitype.SearchRequest{SearchRequest: req})
			if err != nil {
				return err
			}
			return render(cmd.OutOrStdout(), format, res, func() string { return present.Search(res, present.SearchTextBudget) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Mode, "mode", "fts", "fts, vector or hybrid")
	f.StringVar(&project, "project", "", "project (cwd) contains this text; re:REGEXP for a regular expression; lit:PATH for exactly PATH")
	f.StringVar(&req.Filters.SessionID, "session", "", "search only this session")
	f.StringVar(&req.Filters.SourceAgent, "agent", "", "only this agent (and its sub-kinds), e.g. claude-code, codex-cli, or a sub-kind claude-code/subagent")
	f.StringVar(&req.Filters.FromDate, "since", "", "from this UTC day on, YYYY-MM-DD (inclusive)")
	f.StringVar(&req.Filters.ToDate, "until", "", "up to the end of this UTC day, YYYY-MM-DD (inclusive)")
	f.StringVar(&req.Filters.Role, "role", "", "only messages of this role: user or assistant")
	f.StringVar(&req.SortBy, "sort", "relevance", "relevance (recency breaks ties) or recency")
	f.IntVar(&req.Limit, "limit", view.DefaultSearchLimit, fmt.Sprintf("sessions to list (1-%d)", view.MaxSearchLimit))
	f.StringVar(&format, "format", "text", "text or json")
	return cmd
}
