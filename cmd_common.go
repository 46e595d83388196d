package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/store"
)

// globalFlags are the path overrides every command accepts.
var globalFlags paths.Overrides

func addGlobalFlags(root *cobra.Command) {
	f := root.PersistentFlags()
	f.StringVar(&globalFlags.ConfigFile, "config-file", "", "config file (default: per-OS config dir; env "+paths.EnvConfigFile+")")
	f.StringVar(&globalFlags.Data, "data-dir", "", "data directory: Lance tables, SQLite mirror, exports, models (env "+paths.EnvData+")")
	f.StringVar(&globalFlags.State, "state-dir", "", "state directory: store lock, sync records (env "+paths.EnvState+")")
	f.StringVar(&globalFlags.Runtime, "runtime-dir", "", "runtime directory for the daemon's sockets (env "+paths.EnvRuntime+")")
	f.StringVar(&globalFlags.Cache, "cache-dir", "", "cache directory (env "+paths.EnvCache+")")
}

func resolveDirs() (paths.Dirs, error) { return paths.Resolve(globalFlags) }

// loadConfig resolves the locations and reads the config file (exists is false when there is
// none yet and the defaults apply).
func loadConfig() (d paths.Dirs, cfg *config.Config, exists bool, err error) {
	if d, err = resolveDirs(); err != nil {
		return d, nil, false, err
	}
	cfg, exists, err = config.Load(d.ConfigFile.Path)
	return d, cfg, exists, err
}

// logger is where commands log: stderr, warnings and up unless POND_LOG=debug|info.
func logger() *slog.Logger {
	level := slog.LevelWarn
	switch os.Getenv("POND_LOG") {
	case "debug":
		level = slog.LevelDebug
	case "info":
		level = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// openStore opens the archive for a command that runs without a daemon.
func openStore(ctx context.Context, command string) (*store.Store, error) {
	d, err := resolveDirs()
	if err != nil {
		return nil, err
	}
	return store.Open(ctx, store.Options{DataDir: d.Data.Path, StateDir: d.State.Path, Command: command, Logger: logger()})
}
