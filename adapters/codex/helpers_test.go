package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
)

// testRoot is the Codex home of the hand-written fixtures.
var testRoot = filepath.Join("testdata", "codex")

// Thread ids of the fixtures.
const (
	mainID   = "0195a0c1-7e2b-7c41-9d3e-5b6f7a8b9c0d"
	forkID   = "0195a0c2-1111-7222-8333-444455556666"
	subID    = "0195a0c3-aaaa-7bbb-8ccc-dddddddddddd"
	zstID    = "0195a0c4-9999-7888-8777-666655554444"
	fileMism = "0195a0c5-0000-7000-8000-00000000abcd"
	metaMism = "0195a0c5-0000-7000-8000-00000000ffff"
	legacyID = "5973b6c0-94b8-487b-a530-2aeb6098ae0e"
)

// Fixture keys (paths relative to testRoot).
const (
	mainKey   = "sessions/2026/03/14/rollout-2026-03-14T09-15-02-" + mainID + ".jsonl"
	subKey    = "sessions/2026/03/14/rollout-2026-03-14T09-16-00-" + subID + ".jsonl"
	forkKey   = "sessions/2026/03/15/rollout-2026-03-15T10-00-00-" + forkID + ".jsonl"
	mismKey   = "sessions/2026/03/16/rollout-2026-03-16T05-00-00-" + fileMism + ".jsonl"
	legacyKey = "sessions/2025/06/02/rollout-2025-06-02T14-03-11-" + legacyID + ".jsonl"
	zstKey    = "archived_sessions/rollout-2026-02-01T08-00-00-" + zstID + ".jsonl.zst"
)

// sourceOf is the Source of one file, as Scan would list it.
func sourceOf(t testing.TB, path string) adapters.Source {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return adapters.Source{Key: filepath.ToSlash(path), Path: path, Stamp: adapters.FileStamp(fi), Size: fi.Size(), ModTime: fi.ModTime()}
}

// readFile reads one file from the start.
func readFile(t testing.TB, path string) (*adaptertest.Collector, adapters.Cursor) {
	t.Helper()
	var c adaptertest.Collector
	cur, err := New().Read(context.Background(), adapters.Env{}, sourceOf(t, path), adapters.Cursor{}, &c)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return &c, cur
}

// sourceOpt is options.source of a message.
type sourceOpt struct {
	Record json.RawMessage `json:"record"`
	Line   int             `json:"line"`
}

func sourceOptOf(t testing.TB, m session.Message) sourceOpt {
	t.Helper()
	var s sourceOpt
	raw, _ := session.Original(m.Options["source"]) // the bytes as written, when the archive repaired them
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("message %s: options.source: %v", m.ID, err)
	}
	return s
}

// fileLines are the lines of a rollout (decompressed when it is a .zst), by 1-based number.
func fileLines(t testing.TB, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".zst") {
		dec, err := zstd.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		defer dec.Close()
		r = dec
	}
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// checkLossless checks the capture conventions' first rule on a whole read: every non-blank line
// is either kept verbatim, exactly once, under options.source.record of one message (which
// names its line), or reported as malformed.
func checkLossless(t testing.TB, path string, c *adaptertest.Collector) {
	t.Helper()
	lines := fileLines(t, path)
	kept := map[int]int{}
	for _, m := range c.Messages() {
		s := sourceOptOf(t, m)
		kept[s.Line]++
		if s.Line < 1 || s.Line > len(lines) {
			t.Errorf("%s: message %s names line %d of %d", path, m.ID, s.Line, len(lines))
			continue
		}
		if want := strings.TrimRight(lines[s.Line-1], "\r"); !bytes.Equal(s.Record, []byte(want)) {
			t.Errorf("%s: message %s: record is not line %d verbatim:\n got %s\nwant %s", path, m.ID, s.Line, s.Record, want)
		}
	}
	bad := map[int]bool{}
	for _, p := range c.Bad {
		bad[p.At.Line] = true
	}
	for i, line := range lines {
		no := i + 1
		switch {
		case strings.TrimSpace(line) == "":
			if kept[no] > 0 {
				t.Errorf("%s: blank line %d kept", path, no)
			}
		case bad[no] && kept[no] > 0:
			t.Errorf("%s: line %d both kept and malformed", path, no)
		case !bad[no] && kept[no] != 1:
			t.Errorf("%s: line %d kept %d times, want once", path, no, kept[no])
		}
	}
}

// searchTexts are the non-empty search texts of a collection's messages, by message id.
func searchTexts(c *adaptertest.Collector) map[string]string {
	out := map[string]string{}
	for _, m := range c.Messages() {
		if s := session.SearchText(&m, c.PartsOf(m.SessionID, m.ID)); s != "" {
			out[m.ID] = s
		}
	}
	return out
}

// copyFile copies src to dst, creating dst's folder.
func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dst, data)
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t testing.TB, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
}
