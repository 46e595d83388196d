package cursor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/adapters/adaptertest"
)

// FuzzComposer runs the IDE mapping on an arbitrary composer record and two arbitrary bubbles,
// as readIDE does after loading them: nothing may panic, and every event must pass the store's
// validator (the collector checks each one).
func FuzzComposer(f *testing.F) {
	sql, _ := os.ReadFile("testdata/cursor/User/globalStorage/state.sql")
	var values []string
	for _, line := range strings.Split(string(sql), "\n") {
		if _, v, ok := strings.Cut(line, "','"); ok && strings.HasPrefix(line, "INSERT INTO cursorDiskKV") {
			values = append(values, strings.ReplaceAll(strings.TrimSuffix(v, "');"), "''", "'"))
		}
	}
	for i := 0; i+2 < len(values); i++ {
		f.Add([]byte(values[0]), []byte(values[i+1]), []byte(values[i+2]))
	}
	f.Add([]byte(`{"conversation":[1,{"type":2,"toolFormerData":{"rawArgs":"{\"a\":","result":"[1,"}}],"createdAt":-5}`), []byte(`{"type":1,"createdAt":1e400}`), []byte(`{"type":"1"}`))
	f.Add([]byte(`{"fullConversationHeadersOnly":[{"bubbleId":"a"},{"bubbleId":"a"}],"subComposerIds":["x","x",1]}`), []byte(`{"type":2,"thinking":{"text":" "},"toolFormerData":{"status":"error","tool":{}}}`), []byte(`null`))
	for _, v := range adaptertest.Hostile() {
		f.Add([]byte(`{"createdAt":1,"x":`+v+`}`), []byte(`{"type":2,"text":`+v+`,"toolFormerData":{"rawArgs":`+v+`}}`), []byte(`{"type":1,"text":"`+strings.Repeat("[", 20000)+`"}`))
	}
	f.Fuzz(func(t *testing.T, record, b1, b2 []byte) {
		c := &composer{id: "c-1", db: "/db", record: record, bubbles: []kv{{"bubbleId:c-1:a", b1}, {"bubbleId:c-1:b", b2}},
			project: "", fallback: time.Unix(1, 0)}
		var out adaptertest.Collector
		if _, err := emitComposer(c, &out); err != nil {
			t.Fatal(err)
		}
		if got := out.Counts(); got.Sessions != 1 {
			t.Errorf("one composer gave %v", got)
		}
	})
}

// FuzzTranscript runs the transcript mapping on arbitrary lines.
func FuzzTranscript(f *testing.F) {
	data, _ := os.ReadFile(filepath.Join("testdata", "cursor", "projects", "home-dev-shop", "agent-transcripts",
		"7c9e6679-7425-40de-944b-e07fc1f90ae7", "7c9e6679-7425-40de-944b-e07fc1f90ae7.jsonl"))
	for _, l := range strings.Split(string(data), "\n") {
		f.Add([]byte(l))
	}
	f.Add([]byte(`{"role":"user","message":{"content":[null,1,{"type":"tool_use","input":[]}]}}`))
	f.Add([]byte(`{"role":"assistant","message":"x"}`))
	for _, v := range adaptertest.Hostile() {
		f.Add([]byte(`{"role":"user","message":{"content":` + v + `}}`))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var out adaptertest.Collector
		c := &chat{id: "chat-1"}
		s := c.session("linux", time.Unix(1, 0))
		if err := out.Event(sessionEvent(&s)); err != nil {
			t.Fatal(err)
		}
		st := transcriptState{V: transcriptStateVersion, Start: time.Unix(1, 0)}
		if err := transcriptLine(&s, &st, "/t.jsonl", line, 1, map[string]bool{}, &out); err != nil {
			t.Fatal(err)
		}
	})
}
