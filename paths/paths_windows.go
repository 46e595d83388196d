package paths

import (
	"errors"
	"os"
	"path/filepath"
)

const onnxRuntimeFile = "onnxruntime.dll"

// maxSocketPath is the longest path an AF_UNIX socket can be bound to (afunix.h's
// UNIX_PATH_MAX, 108, less the terminating NUL).
const maxSocketPath = 107

func defaults() (defaultDirs, error) {
	roaming, local := os.Getenv("APPDATA"), os.Getenv("LOCALAPPDATA")
	if roaming == "" || local == "" {
		return defaultDirs{}, errors.New("paths: APPDATA and LOCALAPPDATA must be set (or the POND_*_DIR variables)")
	}
	base := filepath.Join(local, "pond")
	return defaultDirs{
		configFile: filepath.Join(roaming, "pond", "config.toml"),
		data:       filepath.Join(base, "data"),
		state:      filepath.Join(base, "state"),
		cache:      filepath.Join(base, "cache"),
		runtime:    filepath.Join(base, "run"),
	}, nil
}
