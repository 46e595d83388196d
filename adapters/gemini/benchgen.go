package gemini

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pondhq/pond/adapters/corpus"
)

// geminiFormat writes Gemini CLI ≥0.39 sessions: <home>/.gemini/tmp/<project slug>/chats/
// session-<time>-<id8>.jsonl, a metadata line then one MessageRecord per line, with the slug
// registered in projects.json and marked by a .project_root file. A tool run is one gemini
// record whose toolCalls entry holds the call and its functionResponse.
type geminiFormat struct {
	projects map[string]string // cwd → slug
}

// Corpus implements corpus.Generator.
func (*Adapter) Corpus(corpus.Env) corpus.Format { return &geminiFormat{projects: map[string]string{}} }

func (*geminiFormat) Root(home string) string { return filepath.Join(home, ".gemini") }

func (*geminiFormat) Messages(c *corpus.Conv) int {
	return len(c.Turns) // the metadata line becomes the session, not a message
}

func (g *geminiFormat) Write(root string, c *corpus.Conv) (int64, error) {
	slug := filepath.Base(c.Cwd)
	project := filepath.Join(root, "tmp", slug)
	if _, ok := g.projects[c.Cwd]; !ok {
		g.projects[c.Cwd] = slug
		if err := os.MkdirAll(project, 0o755); err != nil {
			return 0, err
		}
		if err := os.WriteFile(filepath.Join(project, ".project_root"), []byte(c.Cwd), 0o644); err != nil {
			return 0, err
		}
	}
	hash := sha256.Sum256([]byte(c.Cwd))
	end := c.Start
	if len(c.Turns) > 0 {
		end = c.Turns[len(c.Turns)-1].At
	}
	lines := [][]byte{corpus.Obj(corpus.KV("sessionId", c.ID), corpus.KV("projectHash", hex.EncodeToString(hash[:])),
		corpus.KV("startTime", corpus.ISO(c.Start)), corpus.KV("lastUpdated", corpus.ISO(end)), corpus.KV("kind", "main"))}
	for i, t := range c.Turns {
		id := fmt.Sprintf("%s-%08x", c.ID[:23], i+1)
		switch t.Kind {
		case corpus.UserText:
			lines = append(lines, corpus.Obj(corpus.KV("id", id), corpus.KV("timestamp", corpus.ISO(t.At)), corpus.KV("type", "user"),
				corpus.KV("content", corpus.Arr(corpus.Obj(corpus.KV("text", t.Text))))))
		case corpus.AssistantText:
			lines = append(lines, corpus.Obj(corpus.KV("id", id), corpus.KV("timestamp", corpus.ISO(t.At)), corpus.KV("type", "gemini"),
				corpus.KV("content", t.Text), corpus.KV("model", "gemini-2.5-pro")))
		case corpus.ToolRun:
			callID := fmt.Sprintf("run_shell_command_%d_%d", corpus.Millis(t.At), i)
			response, status := corpus.Obj(corpus.KV("output", t.Output)), "success"
			if t.Failed {
				response, status = corpus.Obj(corpus.KV("error", t.Output)), "error"
			}
			lines = append(lines, corpus.Obj(corpus.KV("id", id), corpus.KV("timestamp", corpus.ISO(t.At)), corpus.KV("type", "gemini"), corpus.KV("content", ""),
				corpus.KV("toolCalls", corpus.Arr(corpus.Obj(
					corpus.KV("id", callID), corpus.KV("name", "run_shell_command"), corpus.KV("args", corpus.Obj(corpus.KV("command", t.Text))),
					corpus.KV("result", corpus.Arr(corpus.Obj(corpus.KV("functionResponse", corpus.Obj(corpus.KV("id", callID), corpus.KV("name", "run_shell_command"), corpus.KV("response", response)))))),
					corpus.KV("status", status), corpus.KV("timestamp", corpus.ISO(t.At)), corpus.KV("displayName", "Shell"),
				))),
				corpus.KV("model", "gemini-2.5-pro")))
		}
	}
	name := fmt.Sprintf("session-%s-%s.jsonl", c.Start.Format("2006-01-02T15-04"), c.ID[:8])
	return corpus.WriteLines(filepath.Join(project, "chats", name), lines)
}

// finish writes the project registry, projects.json.
func (g *geminiFormat) Finish(root string) error {
	return os.WriteFile(filepath.Join(root, "projects.json"), corpus.Obj(corpus.KV("projects", g.projects)), 0o644)
}
