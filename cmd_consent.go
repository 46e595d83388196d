package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/ipc/apitype"
)

func newConsentCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "consent grant|decline|status",
		Short: "Say whether Pond may capture sessions automatically",
		Long: `consent records your answer about capture. granted: the daemon captures automatically as
agents write. declined: nothing is captured, not even by pond sync. not asked (the start): only
an explicit pond sync captures.`,
	}
	set := func(c config.Consent) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, _ []string) error {
			api, closeAPI, err := archive(cmd.Context(), "pond consent", daemon.LocalOptions{})
			if err != nil {
				return err
			}
			defer closeAPI()
			resp, err := api.SetConsent(cmd.Context(), &apitype.Consent{Capture: string(c)})
			if err == nil {
				fmt.Fprintf(cmd.OutOrStdout(), "capture consent: %s (%s)\n", c, resp.ConfigFile)
			}
			return err
		}
	}
	var format string
	status := &cobra.Command{
		Use: "status", Short: "Show the current answer", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The answer is in the config file, which anyone may read; only changes go through
			// the daemon.
			_, cfg, _, err := loadConfig()
			if err != nil {
				return err
			}
			return render(cmd.OutOrStdout(), format, map[string]any{"capture": cfg.Consent.Capture}, func() string {
				return fmt.Sprintf("capture consent: %s\n", cfg.Consent.Capture)
			})
		},
	}
	addFormatFlag(status, &format)
	cmd.AddCommand(
		&cobra.Command{Use: "grant", Short: "Allow automatic capture", Args: cobra.NoArgs, RunE: set(config.Granted)},
		&cobra.Command{Use: "decline", Short: "Stop all capture", Args: cobra.NoArgs, RunE: set(config.Declined)},
		status)
	return cmd
}
