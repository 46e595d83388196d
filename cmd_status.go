package main

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/present"
	"github.com/pondhq/pond/session/view"
)

func newStatusCmd() *cobra.Command {
	var format string
	var subagents, hosts bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show what the archive holds and how the last sync went",
		Long: `status shows the archive (sessions, messages and parts, per agent), every agent Pond knows
and whether its data is here, the last sync and each agent's health, capture consent, semantic
search, redaction, the indexes and the daemon.

When several machines write one archive (pond storage use s3://…, on each), it also lists them:
each machine's sessions and messages as far as this machine's mirror has taken them in, and
when it last captured. --hosts lists them even when this machine is the only one.

Examples:
  pond status
  pond status --hosts
  pond status --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := resolveDirs()
			if err != nil {
				return err
			}
			api, closeAPI, err := archive(cmd.Context(), "pond status", daemon.LocalOptions{Archive: true})
			if err != nil {
				return err
			}
			defer closeAPI()
			rep, err := api.Status(cmd.Context())
			if err != nil {
				return err
			}
			if !subagents {
				rep.Agents = slices.DeleteFunc(rep.Agents, func(a view.AgentCount) bool { return strings.Contains(a.Agent, "/") })
			}
			return render(cmd.OutOrStdout(), format, rep, func() string { return present.Status(rep, d.Data.Path, subagents, hosts) })
		},
	}
	cmd.Flags().BoolVar(&subagents, "include-subagents", false, "count sub-agent sessions per sub-kind too")
	cmd.Flags().BoolVar(&hosts, "hosts", false, "list the machines writing this archive even when there is one (listed anyway when several share it)")
	addFormatFlag(cmd, &format)
	return cmd
}
