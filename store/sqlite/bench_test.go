package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"
)

// analyticsMirror fills a mirror with 1M messages (20,000 sessions of 50) and as many parts:
// each message one part, cycling user text, a tool call and its result (one in ten failed).
func analyticsMirror(b *testing.B) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "mirror.db")
	ctx := context.Background()
	m, err := OpenMirror(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	rng := rand.New(rand.NewPCG(1, 1))
	agents := []string{"claude-code", "codex-cli", "gemini-cli", "opencode", "pi-coding-agent"}
	tools := []string{"Bash", "Read", "Edit", "Grep", "Write", "WebFetch"}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	seq := int64(0)
	for s := 0; s < 20_000; s += 500 {
		rows := &Rows{}
		for i := s; i < s+500; i++ {
			sid := fmt.Sprintf("s%06d", i)
			agent := agents[i%len(agents)]
			project := fmt.Sprintf("/home/dev/project-%02d", i%40)
			t0 := start.Add(time.Duration(i) * 20 * time.Minute)
			seq++
			rows.Sessions = append(rows.Sessions, SessionRow{SessionID: sid, SourceAgent: agent, CreatedAt: t0.Format("2006-01-02T15:04:05.000000Z"), Project: project, IngestSeq: seq})
			for j := 0; j < 50; j++ {
				mid := fmt.Sprintf("m%03d", j)
				ts := t0.Add(time.Duration(j) * 10 * time.Second).Format("2006-01-02T15:04:05.000000Z")
				role := []string{"user", "assistant", "tool"}[j%3]
				seq++
				rows.Messages = append(rows.Messages, MessageRow{SessionID: sid, MessageID: mid, Timestamp: ts, Role: role, SourceAgent: agent, Project: project, SearchText: "message text", IngestSeq: seq})
				seq++
				p := PartRow{SessionID: sid, MessageID: mid, ID: "p0", Provenance: "conversational", IngestSeq: seq}
				call := fmt.Sprintf("call_%d", j/3)
				switch j % 3 {
				case 0:
					p.Type, p.VariantData = "text", `{"text":"please look at the logs"}`
				case 1:
					p.Type, p.ToolName, p.CallID = "tool_call", tools[(i+j)%len(tools)], call
					p.VariantData = fmt.Sprintf(`{"call_id":%q,"name":%q,"params":{"command":"go test ./..."}}`, call, p.ToolName)
				case 2:
					fail := rng.IntN(10) == 0
					body := "ok"
					if fail {
						body = "dial tcp 127.0.0.1:5432: connect: ECONNREFUSED"
					}
					p.Type, p.ToolName, p.CallID, p.IsFailure = "tool_result", tools[(i+j-1)%len(tools)], call, &fail
					p.VariantData = fmt.Sprintf(`{"call_id":%q,"is_failure":%v,"result":%q}`, call, fail, body)
				}
				rows.Parts = append(rows.Parts, p)
			}
		}
		if err := m.Apply(ctx, rows); err != nil {
			b.Fatal(err)
		}
	}
	return path
}

// BenchmarkAnalytics times typical questions over 1M messages through the read-only gate.
// Run with -benchtime=3x (building the mirror takes a while).
func BenchmarkAnalytics(b *testing.B) {
	t0 := time.Now()
	path := analyticsMirror(b)
	b.Logf("built a 1M-message mirror in %v", time.Since(t0))
	r, err := OpenReader(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for _, q := range []struct{ name, sql string }{
		{"failure_rate_per_agent", `SELECT source_agent, count(*), avg(is_failure) FROM tool_calls WHERE result IS NOT NULL GROUP BY 1`},
		{"failure_rate_per_agent_parts_only", `SELECT m.source_agent, count(*), avg(p.is_failure) FROM parts p JOIN messages m ON m.session_id = p.session_id AND m.message_id = p.message_id WHERE p.type = 'tool_result' GROUP BY 1`},
		{"sessions_per_day", `SELECT substr(created_at, 1, 10) AS day, count(*) FROM sessions GROUP BY day ORDER BY day DESC LIMIT 30`},
		{"top_tools", `SELECT tool_name, count(*) FROM parts WHERE type = 'tool_call' GROUP BY 1 ORDER BY 2 DESC LIMIT 10`},
		{"like_in_tool_bodies_one_project", `SELECT session_id, message_id FROM parts WHERE session_id IN (SELECT session_id FROM sessions WHERE project = '/home/dev/project-07') AND type = 'tool_result' AND variant_data LIKE '%ECONNREFUSED%' LIMIT 100`},
	} {
		b.Run(q.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := r.Query(context.Background(), q.sql, Options{Limit: 1000, Timeout: 10 * time.Minute}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
