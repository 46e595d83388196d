package benchgen

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// geminiFormat writes Gemini CLI ≥0.39 sessions: <home>/.gemini/tmp/<project slug>/chats/
// session-<time>-<id8>.jsonl, a metadata line then one MessageRecord per line, with the slug
// registered in projects.json and marked by a .project_root file. A tool run is one gemini
// record whose toolCalls entry holds the call and its functionResponse.
type geminiFormat struct {
	projects map[string]string // cwd → slug
}

func (*geminiFormat) root(home string) string { return filepath.Join(home, ".gemini") }

func (*geminiFormat) messages(c *conv) int {
	return len(c.turns) // the metadata line becomes the session, not a message
}

func (g *geminiFormat) write(root string, c *conv) (int64, error) {
	slug := filepath.Base(c.cwd)
	project := filepath.Join(root, "tmp", slug)
	if _, ok := g.projects[c.cwd]; !ok {
		g.projects[c.cwd] = slug
		if err := os.MkdirAll(project, 0o755); err != nil {
			return 0, err
		}
		if err := os.WriteFile(filepath.Join(project, ".project_root"), []byte(c.cwd), 0o644); err != nil {
			return 0, err
		}
	}
	hash := sha256.Sum256([]byte(c.cwd))
	end := c.start
	if len(c.turns) > 0 {
		end = c.turns[len(c.turns)-1].at
	}
	lines := [][]byte{obj(kv{"sessionId", c.id}, kv{"projectHash", hex.EncodeToString(hash[:])},
		kv{"startTime", iso(c.start)}, kv{"lastUpdated", iso(end)}, kv{"kind", "main"})}
	for i, t := range c.turns {
		id := fmt.Sprintf("%s-%08x", c.id[:23], i+1)
		switch t.kind {
		case userText:
			lines = append(lines, obj(kv{"id", id}, kv{"timestamp", iso(t.at)}, kv{"type", "user"},
				kv{"content", arr(obj(kv{"text", t.text}))}))
		case assistantText:
			lines = append(lines, obj(kv{"id", id}, kv{"timestamp", iso(t.at)}, kv{"type", "gemini"},
				kv{"content", t.text}, kv{"model", "gemini-2.5-pro"}))
		case toolRun:
			callID := fmt.Sprintf("run_shell_command_%d_%d", millis(t.at), i)
			response, status := obj(kv{"output", t.output}), "success"
			if t.failed {
				response, status = obj(kv{"error", t.output}), "error"
			}
			lines = append(lines, obj(kv{"id", id}, kv{"timestamp", iso(t.at)}, kv{"type", "gemini"}, kv{"content", ""},
				kv{"toolCalls", arr(obj(
					kv{"id", callID}, kv{"name", "run_shell_command"}, kv{"args", obj(kv{"command", t.text})},
					kv{"result", arr(obj(kv{"functionResponse", obj(kv{"id", callID}, kv{"name", "run_shell_command"}, kv{"response", response})}))},
					kv{"status", status}, kv{"timestamp", iso(t.at)}, kv{"displayName", "Shell"},
				))},
				kv{"model", "gemini-2.5-pro"}))
		}
	}
	name := fmt.Sprintf("session-%s-%s.jsonl", c.start.Format("2006-01-02T15-04"), c.id[:8])
	return writeLines(filepath.Join(project, "chats", name), lines)
}

// finish writes the project registry, projects.json.
func (g *geminiFormat) finish(root string) error {
	return os.WriteFile(filepath.Join(root, "projects.json"), obj(kv{"projects", g.projects}), 0o644)
}
