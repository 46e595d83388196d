package store

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/session"
)

// BenchmarkLateTextPart is live capture of a streaming response: a message is stored with its
// first part, and the next write brings its text, which changes the message's search text (the
// write that also rewrites the raw record, rawrecord.go). The session already holds
// 2,000 messages of 2 KB records, in 40 appends as live capture leaves them. It reports that
// second write's latency.
func BenchmarkLateTextPart(b *testing.B) {
	s := openTestStore(b, b.TempDir())
	sess := &session.Session{ID: "s", SourceAgent: "claude-code", Project: "/p", CreatedAt: base}
	filler := strings.Repeat("the command printed a long log line that nobody will search for again; ", 25)
	message := func(i int, text string) (*session.Message, *session.Part) {
		raw, _ := json.Marshal(map[string]any{"type": "assistant", "message": map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}, "log": filler})
		id := fmt.Sprintf("m%05d", i)
		m := &session.Message{SessionID: "s", ID: id, Role: session.RoleAssistant, Timestamp: base.Add(time.Duration(i) * time.Second), Options: session.Options{"source": raw}}
		return m, &session.Part{SessionID: "s", MessageID: id, ID: "t", Ordinal: 1, Type: session.PartText, Provenance: session.Conversational, Text: text}
	}
	for batch := range 40 {
		ev := []session.Event{{Session: sess}}
		for i := batch * 50; i < (batch+1)*50; i++ {
			m, p := message(i, fmt.Sprintf("answer %d: %s", i, filler[:300]))
			ev = append(ev, session.Event{Message: m}, session.Event{Part: p})
		}
		upsert(b, s, ev)
	}
	var ds []time.Duration
	i := 2000
	for b.Loop() {
		i++
		m, text := message(i, fmt.Sprintf("the answer to question %d is in main.go", i))
		think := &session.Part{SessionID: "s", MessageID: m.ID, ID: "a", Type: session.PartReasoning, Provenance: session.Conversational, Text: "thinking"}
		upsert(b, s, []session.Event{{Session: sess}, {Message: m}, {Part: think}})
		t0 := time.Now()
		if out := upsert(b, s, []session.Event{{Session: sess}, {Message: m}, {Part: text}}); out.Reindexed != 1 {
			b.Fatalf("reindexed %d messages, want 1", out.Reindexed)
		}
		ds = append(ds, time.Since(t0))
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "ms-p50")
	b.ReportMetric(float64(ds[len(ds)*95/100].Microseconds())/1000, "ms-p95")
}
