// Package corpus is the shared kit of the agents' benchmark-corpus generators: the generated
// conversation each agent's Format writes in its native layout, ordered JSON, JSONL files.
// Each agent's generator lives in its own package (adapters/<agent>/benchgen.go);
// daemon/capture/benchgen deals sessions to every agent in adapters/all and writes the corpus.
package corpus

import (
	"database/sql"
	"os"
	"path/filepath"
	"time"
)

// Generator is implemented by every adapter in adapters/all (its tests check): it writes
// sessions in the agent's native layout, for the sync benchmark.
type Generator interface {
	// Corpus returns a Format for one corpus (a Format may keep state across sessions: an
	// index file, rows not yet committed).
	Corpus(env Env) Format
}

// Env is what a Format may use besides the file system: the store's SQLite driver, for an
// agent that keeps a database (adapters never link a driver; daemon/capture/benchgen passes
// store/sqlite's functions).
type Env struct {
	CreateDB func(path, script string) error
	WriteDB  func(path string, fn func(tx *sql.Tx) error) error
}

// Format writes sessions in one agent's native layout.
type Format interface {
	// Root is the directory the adapter's discovery finds under home.
	Root(home string) string
	// Messages is what c becomes in the adapter: the canonical messages its records produce.
	Messages(c *Conv) int
	// Write stores c under root and returns the bytes written.
	Write(root string, c *Conv) (int64, error)
	// Finish completes what Write left open (an index file, a database).
	Finish(root string) error
}

// Kind is what one step of a conversation is.
type Kind int

// Kinds of turns.
const (
	UserText Kind = iota
	AssistantText
	ToolRun // an assistant's tool call and the tool's result
)

// Turn is one step of a generated conversation.
type Turn struct {
	Kind   Kind
	At     time.Time
	Text   string // user or assistant text; the command of a tool run
	Tool   string // bash, read, edit or grep
	Output string // a tool run's result
	Failed bool
}

// Conv is one generated session before it is written in an agent's format.
type Conv struct {
	Index   int    // the session's place in the corpus
	ID      string // a UUID
	Cwd     string
	Start   time.Time
	Turns   []Turn
	LastAt  time.Time
	RandHex func(n int) string // n random hex digits from the corpus's seed
}

// CountTurns counts c's turns: texts (user or assistant) and tool runs.
func (c *Conv) CountTurns() (texts, tools int) {
	for _, t := range c.Turns {
		if t.Kind == ToolRun {
			tools++
		} else {
			texts++
		}
	}
	return texts, tools
}

// WriteLines writes JSONL records to path, creating its folder, and returns the bytes written.
func WriteLines(path string, lines [][]byte) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	var n int
	for _, l := range lines {
		n += len(l) + 1
	}
	buf := make([]byte, 0, n)
	for _, l := range lines {
		buf = append(append(buf, l...), '\n')
	}
	return int64(n), os.WriteFile(path, buf, 0o644)
}

// Millis is t in Unix milliseconds, as several agents record time.
func Millis(t time.Time) int64 { return t.UnixMilli() }

// ISO is t as the agents' ISO-8601 timestamps with milliseconds.
func ISO(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
