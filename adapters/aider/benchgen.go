package aider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pondhq/pond/adapters/corpus"
)

// aiderFormat writes Aider chat histories: <home>/src/<project>/.aider.chat.history.md, one run
// appended per session (sessions of one project share its file, as Aider's runs do). A tool run
// is what Aider writes of a command: a successful one either typed (#### /run CMD, the question
// whether to add its output, the lines added) or proposed by the model (the question whether to
// run it, "Running CMD", the question whether to add its output, the lines added); a failed one
// is a /test whose output Aider added, which it does only on a non-zero exit.
type aiderFormat struct{}

// Corpus implements corpus.Generator.
func (Adapter) Corpus(corpus.Env) corpus.Format { return aiderFormat{} }

// Root is the home: the walk finds the files below it.
func (aiderFormat) Root(home string) string { return home }

func (aiderFormat) Messages(c *corpus.Conv) int {
	n := 1 // the header
	for i, t := range c.Turns {
		switch {
		case t.Kind != corpus.ToolRun:
			n++
		case t.Failed:
			n += 2
		case i%2 == 0:
			n += 3
		default:
			n += 4
		}
	}
	return n
}

func (aiderFormat) Finish(string) error { return nil }

func (aiderFormat) Write(root string, c *corpus.Conv) (int64, error) {
	var b strings.Builder
	b.WriteString("\n" + headerPrefix + c.Start.In(location).Format(headerLayout) + "\n\n")
	tool := func(s string) { b.WriteString(toolPrefix + s + "  \n") }
	for i, t := range c.Turns {
		text := strings.TrimSpace(t.Text)
		switch t.Kind {
		case corpus.UserText:
			b.WriteString("\n" + userPrefix + strings.Join(strings.Split(text, "\n"), "  \n"+userPrefix) + "  \n")
		case corpus.AssistantText:
			b.WriteString("\n" + text + "\n\n")
		case corpus.ToolRun:
			cmd := strings.Join(strings.Fields(text), " ")
			lines := strings.Count(strings.TrimSpace(t.Output), "\n") + 1
			added := fmt.Sprintf("Added %d line%s of output to the chat.", lines, map[bool]string{true: "s"}[lines != 1])
			k := float64(len(t.Output)) / 4000
			switch {
			case t.Failed:
				b.WriteString("\n" + userPrefix + "/test " + cmd + "  \n")
				tool(added)
			case i%2 == 0:
				b.WriteString("\n" + userPrefix + "/run " + cmd + "  \n")
				tool(fmt.Sprintf("Add %.1fk tokens of command output to the chat? (Y)es/(N)o [Yes]: y", k))
				tool(added)
			default:
				tool("Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: y")
				tool("Running " + cmd)
				tool("Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y")
				tool(added)
			}
		}
	}
	dir := filepath.Join(root, "src", filepath.Base(c.Cwd))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	f, err := os.OpenFile(filepath.Join(dir, HistoryFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return 0, err
	}
	n, err := f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return int64(n), err
}
