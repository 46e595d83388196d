package claudecode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters/adaptertest"
)

// checkRecord checks that a line reads the same with unmarshal as with encoding/json.
func checkRecord(t *testing.T, line []byte) {
	t.Helper()
	want, werr := parseRecordWith(line, json.Unmarshal)
	got, gerr := parseRecord(line)
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
		t.Fatalf("%.100q: error %v, encoding/json's %v", line, gerr, werr)
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(record{}, content{}, blockJSON{}, messageHead{})); diff != "" {
		t.Errorf("%.100q: record (-encoding/json +unmarshal):\n%s", line, diff)
	}
}

// recordLines are the lines of the testdata and shared fixtures, and odd ones.
func recordLines(tb testing.TB) [][]byte {
	lines := [][]byte{
		[]byte(`{"TYPE":"user","Uuid":"u","message":{"Content":"x","ID":"m"},"isMeta":"yes","timestamp":7}`),
		[]byte(`{"type":"user","type":"assistant","message":{"content":[{"type":"text","TEXT":"a","text":"b"}]}}`),
		[]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"a":[1,2]}},null,7]}}`),
		[]byte(`{"type":"user","message":{"content":[{"type":"image","source":"s"},{"type":"image"}]}}`),
		[]byte("{\"type\":\"user\",\"cwd\":\"\xff\",\"message\":{\"content\":\"\\ud800 \xe2\x82\"}}"),
		[]byte(`{"type":"user","message":{"content":{"type":"text"}},"forkedFrom":{"sessionId":5}}`),
		[]byte(`{"type":"user","message":[]}`), []byte(`{"type":"user"`), []byte(`{"a":1}x`), []byte(`[1]`),
	}
	for _, v := range adaptertest.Hostile() {
		lines = append(lines, []byte(`{"type":"user","message":{"content":[{"type":"text","text":`+v+`}]}}`))
	}
	for _, dir := range []string{"testdata", corpusDir} {
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
				return nil
			}
			f, err := os.Open(path)
			if err != nil {
				return nil
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				if l := bytes.TrimSpace(sc.Bytes()); len(l) > 0 {
					lines = append(lines, bytes.Clone(l))
				}
			}
			return nil
		})
	}
	return lines
}

// TestParseRecordAsEncodingJSON: every line reads as encoding/json reads it.
func TestParseRecordAsEncodingJSON(t *testing.T) {
	lines := recordLines(t) // the shared fixtures' too, where they are
	if len(lines) < 50 {
		t.Fatalf("only %d lines", len(lines))
	}
	for _, l := range lines {
		checkRecord(t, l)
	}
}

func FuzzParseRecord(f *testing.F) {
	for _, l := range recordLines(f) {
		if len(l) < 4096 {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkRecord(t, line) })
}
