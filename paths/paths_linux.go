package paths

import (
	"os"
	"path/filepath"
)

const onnxRuntimeFile = "libonnxruntime.so.1"

// maxSocketPath is the longest path a Unix socket can be bound to: sun_path's 108 bytes less
// the terminating NUL.
const maxSocketPath = 107

func defaults() (defaultDirs, error) {
	var d defaultDirs
	cfg, err := xdg("XDG_CONFIG_HOME", ".config")
	if err != nil {
		return d, err
	}
	d.configFile = filepath.Join(cfg, "pond", "config.toml")
	for _, x := range []struct {
		dst       *string
		env, fall string
	}{
		{&d.data, "XDG_DATA_HOME", ".local/share"},
		{&d.state, "XDG_STATE_HOME", ".local/state"},
		{&d.cache, "XDG_CACHE_HOME", ".cache"},
	} {
		base, err := xdg(x.env, x.fall)
		if err != nil {
			return d, err
		}
		*x.dst = filepath.Join(base, "pond")
	}
	// Without a session runtime directory (a bare SSH login, cron, a container) runtime stays
	// empty and Resolve puts it under the state directory (runtimeFallback).
	if rt := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(rt) {
		d.runtime = filepath.Join(rt, "pond")
	}
	return d, nil
}
