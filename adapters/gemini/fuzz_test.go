package gemini

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
)

// FuzzRead feeds arbitrary bytes to both readers, whole and in two steps: nothing may panic, and
// whatever is emitted must pass the store's validator (a Read error here is a bug).
func FuzzRead(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(testHome, ".gemini", "tmp", "*", "chats", "*.json*"))
	corpus, _ := filepath.Glob(filepath.Join(corpusDir, "*", "*.json*"))
	for _, p := range append(seeds, corpus...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, uint16(len(b)/2))
		}
	}
	f.Add([]byte(`{"sessionId":"","projectHash":""}`+"\n"+`{"id":"","type":"gemini","toolCalls":[null,{"id":7}],"content":[{"inlineData":{"data":"%%"}},"x",{"thought":true,"text":"t"}]}`), uint16(20))
	f.Add([]byte(`{"$set":{"messages":[{"id":"a","type":"user","content":"x"},{"id":"a","type":"user","content":["y"]}]}}`+"\n"+`{"$rewindTo":"a"}`), uint16(3))
	for _, v := range adaptertest.Hostile() { // bounds: depth, a long line, invalid UTF-8
		f.Add([]byte(`{"sessionId":"s","projectHash":"h"}`+"\n"+`{"id":"m","type":"user","content":[{"text":`+v+`}]}`+"\n"+
			`{"$set":{"messages":[{"id":"c","type":"gemini","toolCalls":[{"id":"t","result":`+v+`}]}]}}`+"\n"), uint16(36))
		f.Add([]byte(`{"sessionId":"s","messages":[{"id":"m","type":"user","content":`+v+`}],"summary":`+v+`}`), uint16(30))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		dir := t.TempDir()
		for _, name := range []string{"session-f.jsonl", "session-f.json"} {
			path := filepath.Join(dir, "tmp", "p", "chats", "parent", name)
			n := min(int(cut), len(data))
			var c adaptertest.Collector
			cur := fuzzRead(t, path, data[:n], adapters.Cursor{}, &c)
			fuzzRead(t, path, data, cur, &c)
		}
	})
}

func fuzzRead(t *testing.T, path string, data []byte, cur adapters.Cursor, c *adaptertest.Collector) adapters.Cursor {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	src := adapters.Source{Key: filepath.Base(path), Path: path, Stamp: adapters.FileStamp(info), Size: info.Size(), ModTime: info.ModTime()}
	next, err := New().Read(context.Background(), adapters.Env{Limits: adaptertest.FuzzLimits}, src, cur, c)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return next
}
