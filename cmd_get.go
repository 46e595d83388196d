package main

import (
	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/present"
	"github.com/pondhq/pond/session/view"
)

func newGetSessionCmd() *cobra.Command {
	var req view.GetSessionRequest
	var format string
	cmd := &cobra.Command{
		Use:   "get-session ID",
		Short: "Read a stored session, a page at a time",
		Long: `get-session prints a page of a session's messages in order: their text, and one line per
tool call (->) and result (<-). ID may also be a message id (from search): the page then
starts at that message.

Pages hold --limit messages and at most 200,000 bytes; the output says how many messages are
before and after the page and which flag reads them.

Examples:
  pond get-session 3f2a…                 the first 20 messages, and the session's sub-agents
  pond get-session 3f2a… --from end      the latest 20 (after a compaction, read from here)
  pond get-session 3f2a… --after MSG_ID  the page after MSG_ID`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.ID = args[0]
			api, closeAPI, err := archive(cmd.Context(), "pond get-session", daemon.LocalOptions{Archive: true})
			if err != nil {
				return err
			}
			defer closeAPI()
			page, err := api.GetSession(cmd.Context(), &apitype.GetSessionRequest{GetSessionRequest: req})
			if err != nil {
				return err
			}
			return render(cmd.OutOrStdout(), format, page, func() string { return present.Page(page) })
		},
	}
	f := cmd.Flags()
	f.IntVar(&req.Limit, "limit", view.DefaultPageLimit, "messages per page")
	f.StringVar(&req.From, "from", "start", "start or end of the session")
	f.StringVar(&req.AfterMessageID, "after", "", "the page after this message id")
	f.StringVar(&req.BeforeMessageID, "before", "", "the page before this message id")
	f.StringVar(&req.AtMessageID, "at", "", "the page starting at this message id of the session")
	f.StringVar(&format, "format", "text", "text or json")
	return cmd
}

func newGetMessageCmd() *cobra.Command {
	var req view.GetMessageRequest
	var before, after int
	var format string
	cmd := &cobra.Command{
		Use:   "get-message ID",
		Short: "Read one message in full: tool calls and results, reasoning, files",
		Long: `get-message prints one message with every part's body (tool calls with their parameters,
tool results, reasoning, files), bounded at 200,000 bytes, between a few of its neighbours.
A message id shared by forks of a session is read from the first; --session picks another.

Examples:
  pond get-message MSG_ID
  pond get-message MSG_ID --context-before 0 --context-after 10 --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.ID = args[0]
			req.ContextBefore, req.ContextAfter = &before, &after
			api, closeAPI, err := archive(cmd.Context(), "pond get-message", daemon.LocalOptions{Archive: true})
			if err != nil {
				return err
			}
			defer closeAPI()
			d, err := api.GetMessage(cmd.Context(), &apitype.GetMessageRequest{GetMessageRequest: req})
			if err != nil {
				return err
			}
			return render(cmd.OutOrStdout(), format, d, func() string { return present.Message(d) })
		},
	}
	f := cmd.Flags()
	f.IntVar(&before, "context-before", view.DefaultContext, "messages to show before it")
	f.IntVar(&after, "context-after", view.DefaultContext, "messages to show after it")
	f.StringVar(&req.SessionID, "session", "", "the session to read it from, when forks share the id")
	f.StringVar(&format, "format", "text", "text or json")
	return cmd
}
