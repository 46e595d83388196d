package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/present"
)

func newAdaptersCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "adapters",
		Short: "List, discover, enable and disable the agents Pond captures",
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "Show every adapter: configured, enabled, and where its data was found",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			resp, err := adapterCall(cmd.Context(), nil)
			if err != nil {
				return err
			}
			infos := resp.Adapters
			return render(cmd.OutOrStdout(), format, map[string]any{"adapters": infos}, func() string { return present.Adapters(infos) })
		},
	}
	discover := &cobra.Command{
		Use:   "discover",
		Short: "Enable every adapter whose agent's data exists on this machine",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			resp, err := adapterCall(cmd.Context(), &apitype.AdapterRequest{Action: "discover"})
			if err != nil {
				return err
			}
			if len(resp.Changed) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "nothing new found (adapters already configured keep their setting)")
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "enabled %s in %s\n", strings.Join(resp.Changed, ", "), resp.ConfigFile)
			return nil
		},
	}
	var path string
	// setAdapter switches one adapter on or off (and, when given, sets its path).
	setAdapter := func(enabled bool) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, args []string) error {
			action := map[bool]string{true: "enable", false: "disable"}[enabled]
			req := &apitype.AdapterRequest{Action: action, Name: args[0]}
			if path != "" {
				abs, err := filepath.Abs(path)
				if err != nil {
					return err
				}
				req.Path = abs
			}
			resp, err := adapterCall(cmd.Context(), req)
			if err == nil {
				fmt.Fprintf(cmd.OutOrStdout(), "%sd %s in %s\n", action, args[0], resp.ConfigFile)
			}
			return err
		}
	}
	enable := &cobra.Command{
		Use:   "enable ADAPTER",
		Short: "Capture this agent's sessions (optionally from --path)",
		Args:  cobra.ExactArgs(1),
		RunE:  setAdapter(true),
	}
	enable.Flags().StringVar(&path, "path", "", "the agent's own root to read (default: discover)")
	disable := &cobra.Command{
		Use:   "disable ADAPTER",
		Short: "Stop capturing this agent (its stored sessions stay)",
		Args:  cobra.ExactArgs(1),
		RunE:  setAdapter(false),
	}
	addFormatFlag(list, &format)
	cmd.AddCommand(list, discover, enable, disable)
	return cmd
}

// adapterCall lists the adapters (req nil) or changes them as req asks.
func adapterCall(ctx context.Context, req *apitype.AdapterRequest) (*apitype.AdaptersResponse, error) {
	api, closeAPI, err := archive(ctx, "pond adapters", daemon.LocalOptions{})
	if err != nil {
		return nil, err
	}
	defer closeAPI()
	if req == nil {
		return api.Adapters(ctx)
	}
	return api.SetAdapters(ctx, req)
}
