package paths

import (
	"fmt"
	"os"
	"path/filepath"
)

const onnxRuntimeFile = "libonnxruntime.so.1"

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
	if rt := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(rt) {
		d.runtime = filepath.Join(rt, "pond")
	} else {
		// No session runtime directory (a bare SSH login, a container): a per-user directory
		// in the temp dir, created 0700 and checked for ownership by whoever creates it.
		d.runtime = filepath.Join(os.TempDir(), fmt.Sprintf("pond-%d", os.Getuid()))
	}
	return d, nil
}
