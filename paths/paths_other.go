//go:build !linux && !darwin && !windows

package paths

import (
	"errors"
	"runtime"
)

const onnxRuntimeFile = "libonnxruntime.so"

func defaults() (defaultDirs, error) {
	return defaultDirs{}, errors.New("paths: no default locations on " + runtime.GOOS + ": set POND_CONFIG_FILE, POND_DATA_DIR, POND_STATE_DIR, POND_CACHE_DIR and POND_RUNTIME_DIR")
}
