package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/paths"
)

type setting struct {
	Key, Value, Source string
}

// storageSetting is where the archive lives and what said so (a URL holds no secret: storage
// locations with credentials in them do not parse).
func storageSetting(d paths.Dirs, cfg *config.Config, fileSrc string) setting {
	switch {
	case d.Storage.Path != "":
		return setting{"storage.path", d.Storage.Path, string(d.Storage.Source)}
	case cfg.StoragePath() != "":
		return setting{"storage.path", cfg.StoragePath(), fileSrc}
	}
	return setting{"storage.path", paths.LanceDir(d.Data.Path), "default"}
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
			set := []setting{
				{"config_file", d.ConfigFile.Path, string(d.ConfigFile.Source)},
				{"data_dir", d.Data.Path, string(d.Data.Source)},
				{"state_dir", d.State.Path, string(d.State.Source)},
				{"cache_dir", d.Cache.Path, string(d.Cache.Source)},
				{"runtime_dir", d.Runtime.Path, string(d.Runtime.Source)},
				storageSetting(d, cfg, src),
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
