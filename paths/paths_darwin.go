package paths

import (
	"path/filepath"
)

const onnxRuntimeFile = "libonnxruntime.dylib"

// maxSocketPath is the longest path a Unix socket can be bound to: sun_path's 104 bytes less
// the terminating NUL.
const maxSocketPath = 103

func defaults() (defaultDirs, error) {
	h, err := home()
	if err != nil {
		return defaultDirs{}, err
	}
	support := filepath.Join(h, "Library", "Application Support", "pond")
	return defaultDirs{
		configFile: filepath.Join(support, "config.toml"),
		data:       support,
		state:      filepath.Join(support, "state"),
		cache:      filepath.Join(h, "Library", "Caches", "pond"),
		// runtime is left to Resolve (runtimeFallback): macOS has no per-user runtime directory,
		// and $TMPDIR is not set for every launchd job.
	}, nil
}
