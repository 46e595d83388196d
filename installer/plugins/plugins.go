// Package plugins holds the agent plugins Pond installs into their hosts, embedded in the pond
// binary: pi-pond, Pi's extension, and openclaw-pond, OpenClaw's plugin (both TypeScript, loaded
// by the host itself), and hermes-pond, Hermes Agent's plugin (Python, loaded by Hermes's plugin
// manager). Each is a thin client of the running daemon's MCP socket and never opens the archive
// itself. What the TypeScript ones share (the socket client, the response budget, the tools'
// bounds and prompt text) is one module, common/, that each installed plugin holds as src/.
package plugins

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

//go:embed pi-pond/index.ts pi-pond/src/*.ts pi-pond/package.json
//go:embed openclaw-pond/index.ts openclaw-pond/src/*.ts openclaw-pond/package.json openclaw-pond/openclaw.plugin.json
//go:embed common/*.ts
//go:embed hermes-pond/hermes_pond/__init__.py hermes-pond/hermes_pond/pond.py hermes-pond/hermes_pond/tools.py hermes-pond/hermes_pond/plugin.yaml
var files embed.FS

// Plugin names, as their packages are named.
const (
	Pi       = "pi-pond"
	OpenClaw = "openclaw-pond"
	Hermes   = "hermes-pond"
)

// layout is where a plugin's files are in this package, the file its host loads first, and
// whether it holds the common TypeScript module as src/.
var layout = map[string]struct {
	src, main string
	common    bool
}{
	Pi:       {"pi-pond", "index.ts", true},
	OpenClaw: {"openclaw-pond", "index.ts", true},
	Hermes:   {"hermes-pond/hermes_pond", "__init__.py", false},
}

// PiDir is where Pi finds a global extension of its own: <agent dir>/extensions/pond/index.ts
// (Pi's agent dir is ~/.pi/agent unless PI_CODING_AGENT_DIR names another).
func PiDir(agentDir string) string { return filepath.Join(agentDir, "extensions", "pond") }

// OpenClawDir is where OpenClaw discovers a plugin package of its own: <state dir>/extensions/
// openclaw-pond (the state dir is ~/.openclaw unless OPENCLAW_STATE_DIR names another).
func OpenClawDir(stateDir string) string { return filepath.Join(stateDir, "extensions", OpenClaw) }

// HermesName is hermes-pond's name in Hermes: its folder under plugins/, the name in its
// plugin.yaml, and what Hermes's plugins.enabled must hold for it to load.
const HermesName = "pond"

// HermesDir is where Hermes finds a user plugin: <Hermes home>/plugins/pond/ (the home is
// ~/.hermes unless HERMES_HOME names another).
func HermesDir(home string) string { return filepath.Join(home, "plugins", HermesName) }

// WritePi writes pi-pond into dir (PiDir), replacing the files of an earlier version.
func WritePi(dir string) error { return Write(Pi, dir) }

// PiCurrent says whether dir holds this pond's pi-pond, every file as embedded.
func PiCurrent(dir string) bool { return Current(Pi, dir) }

// Main is the file of the plugin named name that its host loads first.
func Main(name string) string { return layout[name].main }

// Files is the installed form of the plugin named name: its own files, and for the TypeScript
// ones the common module under src/, by slash path relative to the plugin's folder.
func Files(name string) (map[string][]byte, error) {
	l, ok := layout[name]
	if !ok {
		return nil, fmt.Errorf("plugins: no plugin named %q", name)
	}
	out := map[string][]byte{}
	add := func(root, under string) error {
		return fs.WalkDir(files, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(files, p)
			if err != nil {
				return err
			}
			out[path.Join(under, p[len(root)+1:])] = b
			return nil
		})
	}
	if err := add(l.src, ""); err != nil {
		return nil, err
	}
	if l.common {
		if err := add("common", "src"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Write writes the plugin named name into dir, replacing the files of an earlier version.
func Write(name, dir string) error {
	fsys, err := Files(name)
	if err != nil {
		return err
	}
	for rel, b := range fsys {
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Current says whether dir holds this pond's plugin named name, every file as embedded.
func Current(name, dir string) bool {
	fsys, err := Files(name)
	if err != nil {
		return false
	}
	for rel, want := range fsys {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(got, want) {
			return false
		}
	}
	return true
}
