package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/present"
	"github.com/pondhq/pond/session/view"
)

func newPrivacyCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "privacy",
		Short: "Show or change what is kept out of the archive: excluded projects, secret redaction",
		Long: `Excluded projects are path globs (~ for your home folder; * and ? as in file names) whose
sessions are never captured, nor those of the folders under them. Where an agent's file path
names the project (Claude Code), the file is not even opened; agents keeping every project in
one file or database are read and the excluded sessions dropped before anything is stored.

Secret redaction, off by default, replaces secrets found by gitleaks' maintained rule set with
typed markers such as [REDACTED:aws-access-token], in text, tool parameters and results and the
raw records alike, so search and restore show the marker. It applies to new captures; pond
redact --all rewrites what is already stored.

Examples:
  pond privacy
  pond privacy exclude '~/work/client-x'
  pond privacy include '~/work/client-x'
  pond privacy redact on`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return privacyCall(cmd, format, nil)
		},
	}
	addFormatFlag(cmd, &format)
	exclude := &cobra.Command{
		Use: "exclude GLOB", Short: "Never capture the sessions of projects matching GLOB", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return privacyCall(cmd, format, &apitype.PrivacyRequest{Exclude: args[0]})
		},
	}
	include := &cobra.Command{
		Use: "include GLOB", Short: "Capture the projects matching GLOB again", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return privacyCall(cmd, format, &apitype.PrivacyRequest{Include: args[0]})
		},
	}
	redact := &cobra.Command{
		Use: "redact on|off", Short: "Replace secrets with markers at capture, or stop", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			on := args[0] == "on"
			if !on && args[0] != "off" {
				return &exitError{code: 2, err: fmt.Errorf("redact %q: want on or off", args[0])}
			}
			return privacyCall(cmd, format, &apitype.PrivacyRequest{Redact: &on})
		},
	}
	for _, c := range []*cobra.Command{exclude, include, redact} {
		addFormatFlag(c, &format)
		cmd.AddCommand(c)
	}
	return cmd
}

func privacyCall(cmd *cobra.Command, format string, req *apitype.PrivacyRequest) error {
	ctx := cmd.Context()
	api, closeAPI, err := archive(ctx, "pond privacy", daemon.LocalOptions{Archive: true})
	if err != nil {
		return err
	}
	defer closeAPI()
	var p *apitype.Privacy
	if req == nil {
		p, err = api.Privacy(ctx)
	} else {
		p, err = api.SetPrivacy(ctx, req)
	}
	if err != nil {
		return err
	}
	return render(cmd.OutOrStdout(), format, p, func() string {
		var b strings.Builder
		if len(p.ExcludeProjects) == 0 {
			b.WriteString("excluded projects: none\n")
		}
		for _, g := range p.ExcludeProjects {
			fmt.Fprintf(&b, "excluded project: %s\n", present.Escape(g))
		}
		state := "off"
		if p.Redaction.Enabled {
			state = "on"
		}
		fmt.Fprintf(&b, "secret redaction: %s, %d secrets replaced so far\n", state, p.Redaction.Total)
		for _, rule := range slices.Sorted(maps.Keys(p.Redaction.Rules)) {
			fmt.Fprintf(&b, "  %-32s %d\n", present.Escape(rule), p.Redaction.Rules[rule])
		}
		if st := p.Stored; st != nil && len(st.Sessions) > 0 {
			fmt.Fprintf(&b, "\nthe archive already holds %d sessions (%d messages) under %s; to erase them for good:\n  pond erase --project '%s'\n",
				st.Removed.Sessions, st.Removed.Messages, present.Escape(req.Exclude), present.Escape(req.Exclude))
		}
		return b.String()
	})
}

func newRedactCmd() *cobra.Command {
	var all bool
	var format string
	cmd := &cobra.Command{
		Use:   "redact --all",
		Short: "Replace the secrets already stored with markers, erasing the old bytes",
		Long: `redact --all reads every stored session, replaces the secrets gitleaks' rules find with typed
markers (as redaction at capture does, see pond privacy), and writes each session that held one
back, erasing its old rows for good as pond erase does (rewritten files, pruned versions,
vacuumed mirror). It does not turn redaction of new captures on: pond privacy redact on does.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !all {
				return &exitError{code: 2, err: errors.New("say --all: redact rewrites every stored session that holds a secret")}
			}
			ctx := cmd.Context()
			api, closeAPI, err := archive(ctx, "pond redact", daemon.LocalOptions{Archive: true})
			if err != nil {
				return err
			}
			defer closeAPI()
			rep, err := api.Redact(ctx, &apitype.RedactRequest{All: true})
			if err != nil {
				return err
			}
			return render(cmd.OutOrStdout(), format, rep, func() string { return redactText(rep) })
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "rewrite every stored session that holds a secret")
	addFormatFlag(cmd, &format)
	return cmd
}

func redactText(r *view.RedactReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "scanned %d sessions; rewrote %d, replacing %d secrets\n", r.Scanned, r.Sessions, r.Total)
	for _, rule := range slices.Sorted(maps.Keys(r.Rules)) {
		fmt.Fprintf(&b, "  %-32s %d\n", present.Escape(rule), r.Rules[rule])
	}
	return b.String()
}
