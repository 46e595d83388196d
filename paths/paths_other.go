//go:build !linux && !darwin && !windows

package paths

import (
	"errors"
	"runtime"
)

const onnxRuntimeFile = "libonnxruntime.so"

// maxSocketPath is the shortest common sun_path (the BSDs' 104 bytes) less its NUL.
const maxSocketPath = 103

func defaults() (defaultDirs, error) {
	return defaultDirs{}, errors.New("paths: no default locations on " + runtime.GOOS + ": set POND_CONFIG_FILE, POND_DATA_DIR, POND_STATE_DIR, POND_CACHE_DIR and POND_RUNTIME_DIR")
}
