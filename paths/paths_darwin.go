package paths

import (
	"fmt"
	"os"
	"path/filepath"
)

const onnxRuntimeFile = "libonnxruntime.dylib"

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
		runtime:    filepath.Join(os.TempDir(), fmt.Sprintf("pond-%d", os.Getuid())),
	}, nil
}
