// Package plugins holds the agent plugins Pond installs into their hosts, embedded in the pond
// binary: pi-pond, Pi's extension (TypeScript, loaded by Pi itself), and hermes-pond, Hermes
// Agent's plugin (Python, loaded by Hermes's plugin manager). Each is a thin client of the
// running daemon's MCP socket and never opens the archive itself.
package plugins

import (
	"bytes"
	"embed"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed pi-pond/index.ts pi-pond/src/*.ts pi-pond/package.json
//go:embed hermes-pond/hermes_pond/__init__.py hermes-pond/hermes_pond/pond.py hermes-pond/hermes_pond/tools.py hermes-pond/hermes_pond/plugin.yaml
var files embed.FS

// Plugin is one embedded plugin: the folder of files its host loads.
type Plugin struct {
	src  string // its folder in files
	Main string // the file a host loads first, relative to the plugin's folder
}

var (
	// Pi is pi-pond, written as a global extension of Pi's.
	Pi = Plugin{src: "pi-pond", Main: "index.ts"}
	// Hermes is hermes-pond's package folder, written as a user plugin of Hermes's.
	Hermes = Plugin{src: "hermes-pond/hermes_pond", Main: "__init__.py"}
)

// Write writes the plugin into dir, replacing the files of an earlier version.
func (p Plugin) Write(dir string) error {
	sub, err := fs.Sub(files, p.src)
	if err != nil {
		return err
	}
	return fs.WalkDir(sub, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(sub, path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

// Current says whether dir holds this pond's plugin, every file as embedded.
func (p Plugin) Current(dir string) bool {
	sub, _ := fs.Sub(files, p.src)
	same := true
	fs.WalkDir(sub, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		want, _ := fs.ReadFile(sub, path)
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path)))
		same = same && err == nil && bytes.Equal(got, want)
		return nil
	})
	return same
}

// PiDir is where Pi finds a global extension of its own: <agent dir>/extensions/pond/index.ts
// (Pi's agent dir is ~/.pi/agent unless PI_CODING_AGENT_DIR names another).
func PiDir(agentDir string) string { return filepath.Join(agentDir, "extensions", "pond") }

// WritePi writes pi-pond into dir (PiDir), replacing the files of an earlier version.
func WritePi(dir string) error { return Pi.Write(dir) }

// PiCurrent says whether dir holds this pond's pi-pond, every file as embedded.
func PiCurrent(dir string) bool { return Pi.Current(dir) }

// HermesName is hermes-pond's name in Hermes: its folder under plugins/, the name in its
// plugin.yaml, and what Hermes's plugins.enabled must hold for it to load.
const HermesName = "pond"

// HermesDir is where Hermes finds a user plugin: <Hermes home>/plugins/pond/ (the home is
// ~/.hermes unless HERMES_HOME names another).
func HermesDir(home string) string { return filepath.Join(home, "plugins", HermesName) }
