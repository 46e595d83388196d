package daemon

import (
	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/paths"
)

// StoragePath is where the archive's Lance tables live, as written: --storage-path or
// POND_STORAGE_PATH, else the config's [storage] path, else "" (the data directory's lance/).
// The mirror is always the data directory's own.
func StoragePath(d paths.Dirs) (string, error) {
	if d.Storage.Path != "" {
		return d.Storage.Path, nil
	}
	cfg, _, err := config.Load(d.ConfigFile.Path)
	if err != nil {
		return "", err
	}
	return cfg.StoragePath(), nil
}
