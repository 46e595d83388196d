package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/ipc/apitype"
)

func newConsentCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "consent grant|decline|status [--agent NAME]",
		Short: "Say whether Pond may capture sessions automatically",
		Long: `consent records your answer about capture, for every agent or, with --agent NAME, for one.
granted: Pond captures automatically as agents write (the daemon, and pond serve --with-sync,
which agents' plugins launch). declined: nothing is captured, not even by pond sync. not asked
(the start): only a pond sync you type captures.

An agent's own answer holds for it; the others follow the answer for every agent. An answer for
one agent becomes the answer for every agent too only while that was never given; an answer for
every agent replaces the agents' own.`,
	}
	var agent string
	set := func(c config.Consent) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, _ []string) error {
			api, closeAPI, err := archive(cmd.Context(), "pond consent", daemon.LocalOptions{})
			if err != nil {
				return err
			}
			defer closeAPI()
			resp, err := api.SetConsent(cmd.Context(), &apitype.Consent{Capture: string(c), Agent: agent})
			if err != nil {
				return err
			}
			if agent != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "capture consent for %s: %s (every other agent: %s) (%s)\n", agent, c, resp.Capture, resp.ConfigFile)
			} else {
				fmt.Fprintf(cmd.OutOrStdout(), "capture consent: %s (%s)\n", c, resp.ConfigFile)
			}
			return nil
		}
	}
	var format string
	status := &cobra.Command{
		Use: "status", Short: "Show the current answers", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The answer is in the config file, which anyone may read; only changes go through
			// the daemon.
			_, cfg, _, err := loadConfig()
			if err != nil {
				return err
			}
			return render(cmd.OutOrStdout(), format, map[string]any{"capture": cfg.Consent.Capture, "agents": cfg.Consent.Agents}, func() string {
				var b strings.Builder
				fmt.Fprintf(&b, "capture consent: %s\n", cfg.Consent.Capture)
				for _, name := range slices.Sorted(maps.Keys(cfg.Consent.Agents)) {
					fmt.Fprintf(&b, "  %s: %s\n", name, cfg.Consent.Agents[name])
				}
				return b.String()
			})
		},
	}
	addFormatFlag(status, &format)
	grant := &cobra.Command{Use: "grant", Short: "Allow automatic capture", Args: cobra.NoArgs, RunE: set(config.Granted)}
	decline := &cobra.Command{Use: "decline", Short: "Stop all capture", Args: cobra.NoArgs, RunE: set(config.Declined)}
	for _, c := range []*cobra.Command{grant, decline} {
		c.Flags().StringVar(&agent, "agent", "", "answer for this agent (adapter name) only")
	}
	cmd.AddCommand(grant, decline, status)
	return cmd
}
