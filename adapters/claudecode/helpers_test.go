package claudecode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"sort"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
)

const (
	mainID  = "7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b"
	mainKey = "projects/-srv-demo/" + mainID + ".jsonl"
)

var testEnv = func() adapters.Env {
	env := adaptertest.FakeEnv("linux", "/home/nobody", nil)
	env.Limits = adaptertest.FuzzLimits // the fuzz seeds hold a line over it
	return env
}()

// readTestdata reads every source under testdata.
func readTestdata(t *testing.T) *adaptertest.Collector {
	t.Helper()
	var c adaptertest.Collector
	adaptertest.ReadRoot(t, Adapter{}, testEnv, "testdata", nil, &c)
	return &c
}

// readFile reads one file as a source under key.
func readFile(t testing.TB, key, path string, cur adapters.Cursor, c *adaptertest.Collector) adapters.Cursor {
	t.Helper()
	return adaptertest.ReadSource(t, Adapter{}, testEnv, key, path, cur, c)
}

// partView is what the table tests compare of a part.
type partView struct {
	ID, Type, Prov, Text, CallID, Name string
	Failure                            bool
}

func viewParts(parts []session.Part) []partView {
	var out []partView
	for _, p := range parts {
		out = append(out, partView{p.ID, string(p.Type), string(p.Provenance), p.Text, p.CallID, p.Name, p.IsFailure})
	}
	return out
}

func messagesOf(c *adaptertest.Collector, sessionID string) []session.Message {
	var out []session.Message
	for _, m := range c.Messages() {
		if m.SessionID == sessionID {
			out = append(out, m)
		}
	}
	return out
}

func findMessage(t *testing.T, c *adaptertest.Collector, sessionID, id string) session.Message {
	t.Helper()
	for _, m := range messagesOf(c, sessionID) {
		if m.ID == id {
			return m
		}
	}
	t.Fatalf("no message %s/%s", sessionID, id)
	return session.Message{}
}

// sourceField reads one field of options.source.
func sourceField(o session.Options, field string) json.RawMessage {
	var src map[string]json.RawMessage
	if json.Unmarshal(o["source"], &src) != nil {
		return nil
	}
	return src[field]
}

// keptRecords are the raw records a collection kept, sorted: one per source line it read.
func keptRecords(c *adaptertest.Collector) []string {
	var out []string
	for _, m := range c.Messages() {
		if r := sourceField(m.Options, "record"); r != nil {
			out = append(out, string(r))
		}
	}
	for _, p := range c.Parts() {
		if r := sourceField(p.Options, "record"); r != nil {
			out = append(out, string(r))
		}
	}
	sort.Strings(out)
	return out
}

// fileLines are a file's non-blank lines, without the malformed ones, sorted.
func fileLines(t testing.TB, path string, malformed map[int]bool) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	for no := 1; sc.Scan(); no++ {
		line := bytes.TrimRight(sc.Bytes(), "\r")
		if len(bytes.TrimSpace(line)) > 0 && !malformed[no] {
			out = append(out, string(line))
		}
	}
	sort.Strings(out)
	return out
}

// keys are the distinct archive keys of a collection's events.
func keys(c *adaptertest.Collector) map[session.Key]bool {
	out := map[session.Key]bool{}
	for _, e := range c.Events {
		out[e.Key()] = true
	}
	return out
}

// copyTree copies the fixture (testdata, holding projects/) into a fresh root.
func copyTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("testdata")); err != nil {
		t.Fatal(err)
	}
	return root
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}
