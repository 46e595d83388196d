package paths

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestRuntimeFallback: without a per-user runtime directory the sockets live under the state
// directory, not at a name in /tmp another user can create first; a state directory too deep
// for a socket path falls back to a private directory in the temp dir (checked by ipc).
func TestRuntimeFallback(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv(EnvRuntime, "")
	deep := filepath.Join(home, strings.Repeat("d", 120))
	for _, tc := range []struct{ name, state, want string }{
		{"under_state", filepath.Join(home, "state"), filepath.Join(home, "state", "run")},
		{"too_long_for_a_socket", deep, filepath.Join(os.TempDir(), fmt.Sprintf("pond-%d", os.Getuid()))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvState, tc.state)
			d, err := Resolve(Overrides{})
			if err != nil {
				t.Fatal(err)
			}
			if want := (Path{tc.want, FromDefault}); d.Runtime != want {
				t.Errorf("got %+v, want %+v", d.Runtime, want)
			}
			if n := len(filepath.Join(d.Runtime.Path, longestSocketName)); n > maxSocketPath {
				t.Errorf("socket path %d bytes, over the %d the OS takes", n, maxSocketPath)
			}
		})
	}
}
