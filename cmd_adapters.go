package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/ipc/apitype"
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
			svc, err := localService(nil)
			if err != nil {
				return err
			}
			resp, err := svc.Adapters(cmd.Context())
			if err != nil {
				return cliError(err)
			}
			infos := resp.Adapters
			return render(cmd.OutOrStdout(), format, map[string]any{"adapters": infos}, func() string {
				var b strings.Builder
				for _, a := range infos {
					state := "not configured"
					switch {
					case a.Enabled:
						state = "enabled"
					case a.Configured:
						state = "disabled"
					}
					where := a.Path
					if where == "" {
						where = strings.Join(a.Found, ", ")
					}
					if where == "" {
						where = "no data found"
					}
					fmt.Fprintf(&b, "%-16s %-15s %s\n", a.Name, state, where)
				}
				return b.String()
			})
		},
	}
	discover := &cobra.Command{
		Use:   "discover",
		Short: "Enable every adapter whose agent's data exists on this machine",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			resp, err := writerFor(cmd.Context()).SetAdapters(cmd.Context(), &apitype.AdapterRequest{Action: "discover"})
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
			resp, err := writerFor(cmd.Context()).SetAdapters(cmd.Context(), req)
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
			resp, err := writerFor(cmd.Context()).SetConsent(cmd.Context(), c)
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

func newStatusCmd() *cobra.Command {
	var format string
	var subagents bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show what the archive holds and how the last sync went",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := resolveDirs()
			if err != nil {
				return err
			}
			rep, err := readStatus(cmd.Context())
			if err != nil {
				return cliError(err)
			}
			if !subagents {
				rep.Agents = slices.DeleteFunc(rep.Agents, func(a apitype.AgentCount) bool { return strings.Contains(a.Agent, "/") })
			}
			return render(cmd.OutOrStdout(), format, rep, func() string {
				var b strings.Builder
				fmt.Fprintf(&b, "archive: %d sessions, %d messages, %d parts (%s)\n", rep.Sessions, rep.Messages, rep.Parts, d.Data.Path)
				sort.SliceStable(rep.Agents, func(i, j int) bool { return rep.Agents[i].Sessions > rep.Agents[j].Sessions })
				for _, a := range rep.Agents {
					fmt.Fprintf(&b, "  %-24s %6d sessions %9d messages\n", a.Agent, a.Sessions, a.Messages)
				}
				if !subagents {
					b.WriteString("  (sub-agent sessions not listed; --include-subagents)\n")
				}
				if ls := rep.LastSync; ls != nil {
					fmt.Fprintf(&b, "last sync: %s, %s, %d sessions and %d messages new, %.1fs", ls.FinishedAt, ls.Outcome, ls.SessionsInserted, ls.MessagesInserted, ls.DurationSecs)
					if ls.Error != "" {
						fmt.Fprintf(&b, " (%s)", ls.Error)
					}
					b.WriteString("\n")
				} else {
					b.WriteString("last sync: never; run pond sync\n")
				}
				fmt.Fprintf(&b, "capture consent: %s\n", rep.Consent)
				if e := rep.Embeddings; e.Enabled {
					fmt.Fprintf(&b, "semantic search: on (%s), %d of %d messages embedded\n", e.Model, e.Embedded, rep.Messages)
				} else {
					b.WriteString("semantic search: off\n")
				}
				for _, ix := range rep.Indexes {
					fmt.Fprintf(&b, "index %s.%s (%s)", ix.Table, ix.Name, ix.Kind)
					if ix.UnindexedRows != nil && *ix.UnindexedRows > 0 {
						fmt.Fprintf(&b, ": %d rows not yet folded in", *ix.UnindexedRows)
					}
					b.WriteString("\n")
				}
				if dm := rep.Daemon; dm != nil {
					fmt.Fprintf(&b, "daemon: pid %d since %s, watching %d folders", dm.PID, dm.StartedAt.Local().Format(time.DateTime), dm.Watching)
					if dm.LastError != "" {
						fmt.Fprintf(&b, "; last error: %s", dm.LastError)
					}
					b.WriteString("\n")
				} else {
					b.WriteString("daemon: not running\n")
				}
				return b.String()
			})
		},
	}
	cmd.Flags().BoolVar(&subagents, "include-subagents", false, "count sub-agent sessions per sub-kind too")
	addFormatFlag(cmd, &format)
	return cmd
}

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Show Pond's configuration and where it lives"}
	var format string
	show := &cobra.Command{
		Use: "show", Short: "Every setting with its source (flag, env, file, default)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, cfg, exists, err := loadConfig()
			if err != nil {
				return err
			}
			src := "default"
			if exists {
				src = "file"
			}
			type setting struct {
				Key, Value, Source string
			}
			set := []setting{
				{"config_file", d.ConfigFile.Path, string(d.ConfigFile.Source)},
				{"data_dir", d.Data.Path, string(d.Data.Source)},
				{"state_dir", d.State.Path, string(d.State.Source)},
				{"cache_dir", d.Cache.Path, string(d.Cache.Source)},
				{"runtime_dir", d.Runtime.Path, string(d.Runtime.Source)},
				{"consent.capture", string(cfg.Consent.Capture), src},
				{"embeddings.enabled", fmt.Sprint(cfg.Embeddings.Enabled), src},
				{"sync.interval_minutes", fmt.Sprint(cfg.Sync.IntervalMinutes), src},
			}
			for _, name := range cfg.AdapterNames() {
				e := cfg.Adapters[name]
				set = append(set, setting{"adapters." + name + ".enabled", fmt.Sprint(e.Enabled), "file"})
				if e.Path != "" {
					set = append(set, setting{"adapters." + name + ".path", e.Path, "file"})
				}
			}
			return render(cmd.OutOrStdout(), format, set, func() string {
				var b strings.Builder
				for _, s := range set {
					fmt.Fprintf(&b, "%-36s %-50s (%s)\n", s.Key, s.Value, s.Source)
				}
				return b.String()
			})
		},
	}
	addFormatFlag(show, &format)
	path := &cobra.Command{
		Use: "path", Short: "Print the config file's path", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := resolveDirs()
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), d.ConfigFile.Path)
			return nil
		},
	}
	cmd.AddCommand(show, path)
	return cmd
}

// readStatus asks the daemon when one runs, else reads the store in this process.
func readStatus(ctx context.Context) (*apitype.Status, error) {
	if c := daemonClient(ctx); c != nil {
		defer c.Close()
		return c.Status(ctx)
	}
	st, err := openStore(ctx, "pond status")
	if err != nil {
		return nil, err
	}
	defer st.Close()
	svc, err := localService(st)
	if err != nil {
		return nil, err
	}
	defer svc.Close()
	return svc.Status(ctx)
}
