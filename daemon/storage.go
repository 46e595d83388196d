package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"path/filepath"

	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/store"
	"github.com/pondhq/pond/store/lance"
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

// StoreOptions are what every command opens this Pond's own archive with: the data, state and
// storage locations, and for an archive on an object store its disk cache, a folder per
// location under the cache directory (bounded by [storage] cache_mib).
func StoreOptions(d paths.Dirs, command string, log *slog.Logger) (store.Options, error) {
	cfg, _, err := config.Load(d.ConfigFile.Path)
	if err != nil {
		return store.Options{}, err
	}
	storage := d.Storage.Path // as StoragePath, from the one read of the config
	if storage == "" {
		storage = cfg.StoragePath()
	}
	opts := store.Options{DataDir: d.Data.Path, Storage: storage, StateDir: d.State.Path, Command: command, Logger: log}
	if loc, err := lance.ParseLocation(storage); err == nil && loc.Remote() {
		sum := sha256.Sum256([]byte(loc.URI() + "\n" + loc.String()))
		opts.Lance.DiskCache = lance.DiskCache{
			Dir:   filepath.Join(d.Cache.Path, "lance", hex.EncodeToString(sum[:8])),
			Bytes: cfg.StorageCacheMiB() << 20,
		}
	}
	return opts, nil
}
