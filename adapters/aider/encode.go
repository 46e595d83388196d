package aider

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// Encode implements restore.Encoder. A restore is one run, in a history file of its own that
// Pond creates (never one it appends to or replaces): <dir>/aider/<session id>/.aider.chat.history.md,
// where dir is Pond's folder for documents an agent takes in (Job.ImportDir: Pond's exports
// folder, or the --out-dir), never the project's own history, which Pond does not own. The
// command starts Aider in the project on that file with --restore-chat-history, so Aider sends
// the run to the model as the chat so far and appends what follows to the same file.
//
// Native: the run's blocks as Aider wrote them. Foreign: Pond's note as the first input, then
// the conversation in Aider's idiom (user lines as "#### ", replies as text, tool calls as
// Aider's "> Running" lines followed by their result), under a header dated at the session's
// start and the restore mark, on a "# " line Aider skips when it restores a history. Aider
// restores only inputs and replies: the model sees no command, only what was said around it.
func (Adapter) Encode(j *restore.Job) (*restore.Plan, error) {
	t := j.Batch[0]
	dir := j.ImportDir
	if dir == "" {
		dir = j.Root
	}
	if err := restore.CheckRel(t.Session.ID, "session id", t.Session.ID); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, Name, filepath.FromSlash(strings.ReplaceAll(t.Session.ID, "/", "_")), HistoryFile)

	var data []byte
	var f restore.Planned
	if j.Native {
		var lost int
		data, lost = replay(t)
		f = restore.NewFile(path, t.Session.ID, "", restore.Native, "", data)
		if lost > 0 {
			f.Downgrade(restore.LostReason(lost))
		}
		// The file holds no id: the copy is known by its new path.
		f.Downgrade(restore.IDFromFileName)
	} else {
		conv := restore.Converse(t)
		data = foreign(t, conv)
		f = restore.NewFile(path, t.Session.ID, "", restore.Foreign, "", data)
		if r := conv.DroppedReason(); r != "" {
			f.Downgrade(r)
		}
	}
	if n := len(j.Batch) - 1; n > 0 {
		f.Downgrade(fmt.Sprintf("left out %d sub-agent session(s): Aider has none", n))
	}
	f.ID = restoredID(path, data)
	return &restore.Plan{
		ID:       f.ID,
		Cwd:      t.Session.Project,
		Argv:     [][]string{{"aider", "--chat-history-file", path, "--restore-chat-history"}},
		NeedsCwd: true,
		Files:    []restore.Planned{f},
	}, nil
}

// replay is the run's blocks as captured, in file order; lost counts the blocks the archive
// could not keep whole.
func replay(t *restore.Transcript) ([]byte, int) {
	type rec struct {
		line int
		text string
	}
	var recs []rec
	lost := 0
	for _, m := range t.Messages {
		s, raw, ok := restore.KeptRecord(m.Options["source"], &lost)
		if !ok {
			continue
		}
		var text string
		if json.Unmarshal(raw, &text) != nil {
			lost++
			continue
		}
		recs = append(recs, rec{s.Int("line"), text})
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].line < recs[j].line })
	// Where the run was (and the restore it came from) go on lines of Pond's after the header:
	// the copy lies in a folder of Pond's, not in the project.
	pond := projectLine(t.Session.Project) + "\n" + startedPrefix + t.Session.CreatedAt.UTC().Format(time.RFC3339) + "\n"
	var opts struct {
		RestoredFrom json.RawMessage `json:"restored_from"`
	}
	if json.Unmarshal(t.Session.Options["pond"], &opts) == nil && json.Valid(opts.RestoredFrom) && len(opts.RestoredFrom) > 0 {
		pond = markPrefix + string(opts.RestoredFrom) + "\n" + pond
	}
	var b bytes.Buffer
	for i, r := range recs {
		if i == 0 && strings.HasPrefix(strings.TrimLeft(r.text, "\n"), headerPrefix) {
			head, rest, _ := strings.Cut(r.text, headerPrefix)
			line, rest, _ := strings.Cut(rest, "\n")
			b.WriteString(head + headerPrefix + line + "\n" + pond + rest)
			continue
		}
		if i == 0 {
			// A run whose header was cut off: its place and time before it.
			b.WriteString(pond)
		}
		b.WriteString(r.text)
		if !strings.HasSuffix(r.text, "\n") {
			b.WriteByte('\n') // a block always ends a line; only a torn one would not
		}
	}
	return b.Bytes(), lost
}

// foreign writes a conversation as an Aider run: Pond's note first, as the user's first input,
// then the turns. Aider records the commands it ran, not named calls (Capabilities.Commands):
// each call becomes a "> Running" line with its result right after it, as Aider writes them, so
// that a capture pairs them again even where the original made several calls at once.
func foreign(t *restore.Transcript, c *restore.Conversation) []byte {
	var b strings.Builder
	b.WriteString(headerPrefix + t.Session.CreatedAt.In(location).Format(headerLayout) + "\n")
	b.WriteString(markPrefix + string(restore.MarkJSON(t)) + "\n")
	b.WriteString(projectLine(t.Session.Project) + "\n\n")
	// A "> " block goes on until a line ends with two spaces: every line but the last loses
	// its trailing blanks, and every line carries the prefix (toolText).
	tool := func(text string) {
		lines := strings.Split(strings.TrimSpace(text), "\n")
		for i, l := range lines {
			lines[i] = toolPrefix + strings.TrimRight(l, " \t\r")
		}
		b.WriteString(strings.Join(lines, "\n") + "  \n\n")
	}
	user := func(text string) {
		if text == "" {
			text = "<blank>"
		}
		b.WriteString(userPrefix + strings.Join(strings.Split(text, "\n"), "  \n"+userPrefix) + "  \n\n")
	}
	result := func(it restore.Item) {
		text := strings.TrimSpace(it.Text)
		if it.IsError && !strings.HasPrefix(text, "Error") {
			text = "Error: " + text
		}
		if text == "" {
			text = "(no output)"
		}
		tool(text)
	}
	results := map[string]restore.Item{}
	for _, turn := range c.Turns {
		for _, it := range turn.Items {
			if it.Kind == restore.ItemResult {
				results[it.CallID] = it
			}
		}
	}
	user(restore.NoteText(t))
	reply := false // the last thing written is a reply: another one right after needs partLine
	for _, turn := range c.Turns {
		for _, it := range turn.Items {
			switch it.Kind {
			case restore.ItemText:
				text := strings.TrimSpace(it.Text)
				if turn.Role == session.RoleUser {
					user(text)
					reply = false
					continue
				}
				if text == "" {
					continue
				}
				if reply {
					b.WriteString(partLine + "\n\n")
				}
				b.WriteString(text + "\n\n")
				reply = true
			case restore.ItemCall:
				tool("Running " + commandText(it))
				if r, ok := results[it.CallID]; ok {
					result(r)
				}
				reply = false
			}
		}
	}
	return []byte(b.String())
}

// projectLine is the line of Pond's naming the run's project; "" for none.
func projectLine(dir string) string {
	if dir == "" {
		return ""
	}
	return projectPrefix + string(adapters.String(dir))
}

// commandText is what a call ran, on one line (Aider's "> Running" line is one): its command
// when it has a one-line one, else its name and arguments as compact JSON.
func commandText(it restore.Item) string {
	var args map[string]json.RawMessage
	if json.Unmarshal(it.Params, &args) == nil {
		var cmd string
		var argv []string // Codex's shell call gives an argv
		if json.Unmarshal(args["command"], &argv) == nil {
			cmd = strings.Join(argv, " ")
		} else {
			_ = json.Unmarshal(args["command"], &cmd)
		}
		if strings.TrimSpace(cmd) != "" && !strings.ContainsAny(cmd, "\r\n") {
			return strings.TrimSpace(cmd)
		}
	}
	var p bytes.Buffer
	if json.Compact(&p, it.Params) != nil || p.Len() == 0 || p.String() == "null" || p.String() == "{}" {
		return it.Name
	}
	return it.Name + " " + p.String()
}

// restoredID is the id the run in data gets when Pond captures it from path.
func restoredID(path string, data []byte) string {
	var c firstSession
	p := &parser{src: adapters.Source{Key: filepath.ToSlash(path), Path: path}, out: &c, key: filepath.ToSlash(path), st: cursorState{V: stateVersion}}
	_ = p.run(context.Background(), bufio.NewReader(bytes.NewReader(data)), adapters.DefaultMaxLineBytes)
	return c.id
}

// firstSession is an emitter that keeps the first session's id.
type firstSession struct{ id string }

func (c *firstSession) Event(e session.Event) error {
	if e.Session != nil && c.id == "" {
		c.id = e.Session.ID
	}
	return nil
}
func (c *firstSession) Malformed(adapters.Location, error) {}
func (c *firstSession) Unknown(adapters.Location, string)  {}
