package paths

import (
	"path/filepath"
	"testing"
)

func TestResolveOrder(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "xdg-data"))
	t.Setenv("XDG_STATE_HOME", "relative/ignored")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("XDG_RUNTIME_DIR", filepath.Join(home, "run"))
	t.Setenv(EnvState, filepath.Join(home, "env-state"))
	t.Setenv(EnvData, "")
	t.Setenv(EnvConfigFile, "")
	t.Setenv(EnvCache, "")
	t.Setenv(EnvRuntime, "")

	d, err := Resolve(Overrides{Cache: filepath.Join(home, "flag-cache")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		got  Path
		want Path
	}{
		{"config", d.ConfigFile, Path{filepath.Join(home, ".config/pond/config.toml"), FromDefault}},
		{"data", d.Data, Path{filepath.Join(home, "xdg-data/pond"), FromDefault}},
		{"state", d.State, Path{filepath.Join(home, "env-state"), FromEnv}},
		{"cache", d.Cache, Path{filepath.Join(home, "flag-cache"), FromFlag}},
		{"runtime", d.Runtime, Path{filepath.Join(home, "run/pond"), FromDefault}},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, tc.got, tc.want)
		}
	}
}

func TestONNXRuntimeLibPrefersExistingCandidate(t *testing.T) {
	dir := t.TempDir()
	d := Dirs{Cache: Path{Path: dir}}
	t.Setenv(EnvONNXRuntimeLib, filepath.Join(dir, "missing.so"))
	p, ok := ONNXRuntimeLib("", d)
	if ok || p.Source != FromEnv {
		t.Fatalf("nothing installed: got %+v ok=%v, want the env candidate, not ok", p, ok)
	}
}
