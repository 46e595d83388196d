// Package plugins holds the agent plugins Pond installs into their hosts, embedded in the pond
// binary: pi-pond, Pi's extension (TypeScript, loaded by Pi itself). Each is a thin client of
// the running daemon's MCP socket and never opens the archive itself.
package plugins

import (
	"bytes"
	"embed"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed pi-pond/index.ts pi-pond/src/*.ts pi-pond/package.json
var files embed.FS

// PiDir is where Pi finds a global extension of its own: <agent dir>/extensions/pond/index.ts
// (Pi's agent dir is ~/.pi/agent unless PI_CODING_AGENT_DIR names another).
func PiDir(agentDir string) string { return filepath.Join(agentDir, "extensions", "pond") }

// WritePi writes pi-pond into dir (PiDir), replacing the files of an earlier version.
func WritePi(dir string) error {
	sub, err := fs.Sub(files, "pi-pond")
	if err != nil {
		return err
	}
	return fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(sub, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

// PiCurrent says whether dir holds this pond's pi-pond, every file as embedded.
func PiCurrent(dir string) bool {
	sub, _ := fs.Sub(files, "pi-pond")
	same := true
	fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		want, _ := fs.ReadFile(sub, p)
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		same = same && err == nil && bytes.Equal(got, want)
		return nil
	})
	return same
}
