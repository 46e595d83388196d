package gemini

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// layout is where a session file sits in the CLI's tree:
// `<root>/tmp/<projectID>/chats/[<parent>/]<file>`. Fields are empty when the file is elsewhere
// (a fixture, a file handed over by hand).
type layout struct {
	root      string // the Gemini home holding projects.json; "" when not under tmp/
	projectID string // slug or hash folder name
	project   string // the project folder
	parent    string // parent session id for a sub-agent file
}

func layoutOf(path string) layout {
	dir := filepath.Dir(path)
	var l layout
	chats := dir
	if filepath.Base(dir) != "chats" {
		if filepath.Base(filepath.Dir(dir)) != "chats" {
			return layout{}
		}
		chats = filepath.Dir(dir)
		l.parent = filepath.Base(dir)
	}
	l.project = filepath.Dir(chats)
	l.projectID = filepath.Base(l.project)
	if tmp := filepath.Dir(l.project); filepath.Base(tmp) == "tmp" {
		l.root = filepath.Dir(tmp)
	}
	return l
}

// resolveProject finds the session's project root: the folder's `.project_root` marker, its
// entry in projects.json, or a known path (registered, or among the session's directories) whose
// SHA-256 is the folder's hash or the record's projectHash. Failing those, the agent's own key:
// the folder name, else the projectHash, else the file's folder. Never empty.
func resolveProject(path string, l layout, projectHash string, dirs []string) string {
	if l.project != "" {
		if b, err := os.ReadFile(filepath.Join(l.project, ".project_root")); err == nil {
			if p := strings.TrimSpace(string(b)); p != "" {
				return p
			}
		}
	}
	registry := readRegistry(l.root)
	paths := make([]string, 0, len(registry))
	for p := range registry {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if l.projectID != "" && registry[p] == l.projectID && strings.TrimSpace(p) != "" {
			return p
		}
	}
	for _, h := range []string{l.projectID, projectHash} {
		for _, p := range append(append([]string{}, dirs...), paths...) {
			if hashOf(p, h) {
				return p
			}
		}
	}
	for _, k := range []string{l.projectID, projectHash, filepath.Base(filepath.Dir(path))} {
		if strings.TrimSpace(k) != "" {
			return k
		}
	}
	return Name
}

// readRegistry reads projects.json: absolute project path → slug.
func readRegistry(root string) map[string]string {
	if root == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(root, "projects.json"))
	if err != nil {
		return nil
	}
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if json.Unmarshal(b, &reg) != nil {
		return nil
	}
	return reg.Projects
}

// hashOf reports whether h names path: the SHA-256 hex of the path, or (older CLIs) its first 16
// hex digits.
func hashOf(path, h string) bool {
	if len(h) < 16 || len(h) > 64 || path == "" {
		return false
	}
	sum := sha256.Sum256([]byte(path))
	return strings.HasPrefix(hex.EncodeToString(sum[:]), strings.ToLower(h))
}
