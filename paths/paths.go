// Package paths is the one place that knows where Pond keeps things on disk: the config file,
// the data directory (Lance tables, SQLite mirror, exports, models), the state directory (store
// lock, last-sync record, cursors), the cache and the runtime directory (sockets). Each follows
// the OS's conventions and can be overridden by an environment variable or a flag, so tests and
// users can isolate a whole installation in one directory.
package paths

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Source says where a resolved path came from.
type Source string

// Sources, strongest first.
const (
	FromFlag    Source = "flag"
	FromEnv     Source = "env"
	FromDefault Source = "default"
)

// Path is a resolved location and where it came from.
type Path struct {
	Path   string `json:"path"`
	Source Source `json:"source"`
}

// Dirs are Pond's locations for one user.
type Dirs struct {
	ConfigFile Path `json:"config_file"`
	Data       Path `json:"data"`
	State      Path `json:"state"`
	Cache      Path `json:"cache"`
	Runtime    Path `json:"runtime"`
	// Storage is where the Lance tables live when a flag or the environment says (a path or an
	// object store URL, kept as written); empty otherwise, when the config's [storage] path or
	// the data directory's lance/ folder applies (daemon.StoragePath).
	Storage Path `json:"storage,omitzero"`
}

// What the data directory holds, named here alone (dataDir is Dirs.Data.Path).

// LanceDir is the folder of the archive's Lance tables.
func LanceDir(dataDir string) string { return filepath.Join(dataDir, "lance") }

// MirrorFile is the SQLite mirror of the Lance tables.
func MirrorFile(dataDir string) string { return filepath.Join(dataDir, "mirror.db") }

// ExportsDir is where exports and restore documents an agent imports itself are written.
func ExportsDir(dataDir string) string { return filepath.Join(dataDir, "exports") }

// ModelsDir holds the installed embedding models, one folder each.
func ModelsDir(dataDir string) string { return filepath.Join(dataDir, "models") }

// Overrides carry command-line flags; empty fields defer to the environment and the defaults.
type Overrides struct {
	ConfigFile, Data, State, Cache, Runtime string
	Storage                                 string
}

// Environment variables that override each location.
const (
	EnvConfigFile = "POND_CONFIG_FILE"
	EnvData       = "POND_DATA_DIR"
	EnvState      = "POND_STATE_DIR"
	EnvCache      = "POND_CACHE_DIR"
	EnvRuntime    = "POND_RUNTIME_DIR"
	EnvStorage    = "POND_STORAGE_PATH"
)

// Resolve works out every location from flags, then the environment, then the OS defaults.
func Resolve(o Overrides) (Dirs, error) {
	def, defErr := defaults()
	var d Dirs
	for _, f := range []struct {
		dst            *Path
		flag, env, def string
	}{
		{&d.ConfigFile, o.ConfigFile, EnvConfigFile, def.configFile},
		{&d.Data, o.Data, EnvData, def.data},
		{&d.State, o.State, EnvState, def.state},
		{&d.Cache, o.Cache, EnvCache, def.cache},
		{&d.Runtime, o.Runtime, EnvRuntime, def.runtime},
	} {
		p := Path{Path: f.def, Source: FromDefault}
		if v := os.Getenv(f.env); v != "" {
			p = Path{Path: v, Source: FromEnv}
		}
		if f.flag != "" {
			p = Path{Path: f.flag, Source: FromFlag}
		}
		if p.Source == FromDefault && defErr != nil {
			return Dirs{}, defErr
		}
		abs, err := filepath.Abs(p.Path)
		if err != nil {
			return Dirs{}, fmt.Errorf("paths: %s: %w", p.Path, err)
		}
		p.Path = abs
		*f.dst = p
	}
	// A storage location may be a URL: it is kept as written, and parsed where it is opened.
	if v := os.Getenv(EnvStorage); v != "" {
		d.Storage = Path{Path: v, Source: FromEnv}
	}
	if o.Storage != "" {
		d.Storage = Path{Path: o.Storage, Source: FromFlag}
	}
	if d.Runtime.Source == FromDefault && def.runtime == "" {
		d.Runtime.Path = runtimeFallback(d.State.Path)
	}
	return d, nil
}

// longestSocketName is the longest name Pond binds in the runtime directory (ipc.APISocket's
// pond.sock).
const longestSocketName = "pond.sock"

// runtimeFallback is the runtime directory where the OS gives no per-user one (Linux without
// XDG_RUNTIME_DIR: SSH, cron, containers; macOS always): "run" in the state directory, which
// no other user can create first. A socket path is limited to maxSocketPath bytes, and a
// deep home can push the state directory past it; then the fallback's fallback is pond-<uid>
// in the temp directory. That name is predictable, so another local user may create it first:
// ipc's Listen and Dial check that the directory is this user's own and writable by nobody
// else, and refuse it otherwise, so such a user can at worst keep the daemon from starting,
// never pose as it.
func runtimeFallback(stateDir string) string {
	dir := filepath.Join(stateDir, "run")
	if len(filepath.Join(dir, longestSocketName)) <= maxSocketPath {
		return dir
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("pond-%d", os.Getuid()))
}

// defaultDirs are the OS's defaults; runtime is empty where the OS has no per-user runtime
// directory (Resolve then uses runtimeFallback).
type defaultDirs struct{ configFile, data, state, cache, runtime string }

func home() (string, error) {
	h, err := os.UserHomeDir()
	if err != nil || h == "" {
		return "", errors.New("paths: cannot find the home directory: set HOME (or the POND_*_DIR variables)")
	}
	return h, nil
}

// xdg returns $name when it is an absolute path (the XDG rule), else $HOME/fallback.
func xdg(name, fallback string) (string, error) {
	if v := os.Getenv(name); filepath.IsAbs(v) {
		return v, nil
	}
	h, err := home()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, fallback), nil
}

// ONNXRuntimeVersion is the ONNX Runtime release Pond is built against (onnxruntime_go v1.27.0
// speaks its C API version 24); a newer library works too.
const ONNXRuntimeVersion = "1.24.1"

// EnvONNXRuntimeLib names the ONNX Runtime shared library explicitly.
const EnvONNXRuntimeLib = "POND_ONNXRUNTIME_LIB"

// ONNXRuntimeLib finds the ONNX Runtime shared library: configured (from the config file; empty
// when unset), then $POND_ONNXRUNTIME_LIB, then next to the pond binary (a release bundles it
// there), then where `make setup` puts it in the cache. The first existing file wins; when none
// exists the first candidate is returned with ok false, so callers can say what is missing.
func ONNXRuntimeLib(configured string, d Dirs) (p Path, ok bool) {
	var cands []Path
	if configured != "" {
		cands = append(cands, Path{configured, "config"})
	}
	if v := os.Getenv(EnvONNXRuntimeLib); v != "" {
		cands = append(cands, Path{v, FromEnv})
	}
	if exe, err := os.Executable(); err == nil {
		cands = append(cands, Path{filepath.Join(filepath.Dir(exe), onnxRuntimeFile), "beside the binary"})
	}
	cands = append(cands, Path{filepath.Join(d.Cache.Path, "onnxruntime", ONNXRuntimeVersion, onnxRuntimeFile), "cache"})
	for _, c := range cands {
		if st, err := os.Stat(c.Path); err == nil && !st.IsDir() {
			return c, true
		}
	}
	return cands[0], false
}
