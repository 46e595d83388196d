package resume_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/claudecode"
	"github.com/pondhq/pond/store"

	"github.com/pondhq/pond/resume"
	"github.com/pondhq/pond/session/sessiongen"
)

// BenchmarkRestore measures whole restores from a real store: reading the transcript, encoding
// and writing (temp file, fsync, link) into a fresh folder each time.
//
//	scripts/go test ./resume -run '^$' -bench Restore -benchtime 20x
func BenchmarkRestore(b *testing.B) {
	ctx := context.Background()
	s := openStore(b)
	cfg := sessiongen.Default()
	cfg.Sessions, cfg.MessagesPerSess, cfg.Agents = 1, 2000, []string{"codex-cli"}
	big := sessiongen.New(cfg).Next()
	upsert(b, s, big)
	bigID := big[0].Session.ID
	nativeID := claudeTranscript(b, s, 2000)
	cases := []struct {
		name, session, to string
	}{
		{"native-2000lines-claude-code", nativeID, "claude-code"},
		{"foreign-2000msgs-to-claude-code", bigID, "claude-code"},
		{"foreign-2000msgs-to-opencode", bigID, "opencode"},
		{"foreign-2000msgs-to-pi", bigID, "pi-coding-agent"},
	}
	b.Run("read-only-2000msgs", func(b *testing.B) { // the store's share of the foreign restores
		for i := 0; i < b.N; i++ {
			if _, err := s.ReadTranscript(ctx, bigID); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			root := b.TempDir()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				o, err := resume.Restore(ctx, archive{s}, resume.Request{Env: rowsEnv, Session: c.session, To: c.to,
					OutDir: filepath.Join(root, fmt.Sprint(i)), Now: fixedNow})
				if err != nil || o.Status != resume.OK {
					b.Fatalf("%v %+v", err, o)
				}
				if i == 0 {
					b.ReportMetric(float64(o.Files[0].Bytes), "bytes/file")
				}
			}
		})
	}
}

// claudeTranscript writes a Claude Code transcript of n lines (user and assistant turns of a
// few hundred bytes), captures it with the real adapter and stores it.
func claudeTranscript(b *testing.B, s *store.Store, n int) string {
	const id = "0b0e0c0d-0000-4000-8000-00000000be0c"
	dir := filepath.Join(b.TempDir(), "projects", "-home-dev-bench")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	var buf strings.Builder
	parent := "null"
	text := strings.Repeat("the quick brown fox jumps over the lazy dog ", 8)
	for i := 0; i < n; i++ {
		at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format("2006-01-02T15:04:05.000Z")
		uuid := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		msg := fmt.Sprintf(`{"role":"user","content":%q}`, text)
		typ := "user"
		if i%2 == 1 {
			typ = "assistant"
			msg = fmt.Sprintf(`{"id":"msg_%d","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":%q}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`, i, text)
		}
		fmt.Fprintf(&buf, `{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":"/home/dev/bench","sessionId":"%s","version":"2.1.0","type":"%s","message":%s,"uuid":"%s","timestamp":"%s"}`+"\n",
			parent, id, typ, msg, uuid, at)
		parent = `"` + uuid + `"`
	}
	path := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(path, []byte(buf.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	info, _ := os.Stat(path)
	var c adaptertest.Collector
	src := adapters.Source{Key: "projects/-home-dev-bench/" + id + ".jsonl", Path: path, Stamp: adapters.FileStamp(info), ModTime: info.ModTime(), Size: info.Size()}
	if _, err := (claudecode.Adapter{}).Read(context.Background(), testEnv(""), src, adapters.Cursor{}, &c); err != nil {
		b.Fatal(err)
	}
	upsert(b, s, c.Events)
	return id
}
