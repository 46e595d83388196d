package daemon

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/session/view"
)

// latencies collects per-operation times and reports their percentiles.
type latencies []time.Duration

func (l latencies) report(b *testing.B, ps ...float64) {
	slices.Sort(l)
	for _, p := range ps {
		i := min(int(float64(len(l))*p/100), len(l)-1)
		b.ReportMetric(float64(l[i].Microseconds()), fmt.Sprintf("p%g-µs", p))
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkAPIRoundTrip: one HTTP request over pond.sock with the least work behind it
// (SELECT 1 through the SQL gate), sequential, on a fresh connection pool per benchmark.
func BenchmarkAPIRoundTrip(b *testing.B) {
	s := serve(b, ipc.ListenOptions{})
	ctx := context.Background()
	var l latencies
	for b.Loop() {
		t0 := time.Now()
		if _, err := s.client.SQL(ctx, &apitype.SQLRequest{Query: "SELECT 1"}); err != nil {
			b.Fatal(err)
		}
		l = append(l, time.Since(t0))
	}
	l.report(b, 50, 99)
}

// BenchmarkMCPRoundTrip: one tools/call (pond_sql SELECT 1) directly on mcp.sock, and through
// the byte relay that `pond mcp` runs (ipc.Bridge) between the client and the socket.
func BenchmarkMCPRoundTrip(b *testing.B) {
	s := serve(b, ipc.ListenOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	connect := func(b *testing.B, bridged bool) *mcp.ClientSession {
		var t mcp.Transport
		if bridged {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			go ipc.Bridge(ctx, s.mcp, inR, outW)
			t = &mcp.IOTransport{Reader: outR, Writer: inW}
		} else {
			conn, err := ipc.Dial(ctx, s.mcp)
			if err != nil {
				b.Fatal(err)
			}
			t = &mcp.IOTransport{Reader: conn, Writer: conn}
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, t, nil)
		if err != nil {
			b.Fatal(err)
		}
		return cs
	}
	for _, bridged := range []bool{false, true} {
		b.Run(map[bool]string{false: "direct", true: "bridge"}[bridged], func(b *testing.B) {
			cs := connect(b, bridged)
			defer cs.Close()
			var l latencies
			for b.Loop() {
				t0 := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "pond_sql", Arguments: map[string]any{"query": "SELECT 1"}})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
				l = append(l, time.Since(t0))
			}
			l.report(b, 50, 99)
		})
	}
}

// BenchmarkFreshness: the whole daemon (Run) watching a Claude Code root; each iteration
// writes a new session file and polls search (every 2 ms) until its unique word is found.
func BenchmarkFreshness(b *testing.B) {
	home := b.TempDir()
	projects := filepath.Join(home, ".claude", "projects")
	copyTree(b, "../adapters/claudecode/testdata/projects", projects)
	b.Setenv("HOME", home)
	b.Setenv("CLAUDE_CONFIG_DIR", "")
	dirs := paths.Dirs{ConfigFile: paths.Path{Path: filepath.Join(home, "config.toml")}, Data: paths.Path{Path: filepath.Join(home, "data")},
		State: paths.Path{Path: filepath.Join(home, "state")}, Runtime: paths.Path{Path: filepath.Join(home, "run")}}
	cfg := config.Default()
	cfg.Consent.Capture = config.Granted
	if err := cfg.Save(dirs.ConfigFile.Path); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Dirs: dirs, Version: "bench"})
	}()
	defer func() { cancel(); <-done }()
	c := ipc.NewClient(ipc.APISocket(dirs.Runtime.Path))
	defer c.Close()
	for {
		st, err := c.Status(ctx)
		if err == nil && st.Sessions > 0 && st.Daemon.Watching > 0 && !st.Daemon.Syncing {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	dir := filepath.Join(projects, "-srv-fresh")
	os.MkdirAll(dir, 0o755)
	var l latencies
	i := 0
	for b.Loop() {
		i++
		id := fmt.Sprintf("f0f0f0f0-0000-4000-8000-%012d", i)
		word := fmt.Sprintf("freshword%d", i)
		line := fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/srv/fresh","sessionId":"%s","version":"2.1.42","type":"user","message":{"role":"user","content":"please look at %s now"},"uuid":"%s","timestamp":"2026-03-02T09:00:00.000Z"}`+"\n",
			id, word, fmt.Sprintf("aaaaaaaa-0000-4000-8000-%012d", i))
		t0 := time.Now()
		if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(line), 0o644); err != nil {
			b.Fatal(err)
		}
		for {
			res, err := c.Search(ctx, &apitype.SearchRequest{SearchRequest: view.SearchRequest{Query: word}})
			if err != nil {
				b.Fatal(err)
			}
			if len(res.Sessions) > 0 {
				break
			}
			if time.Since(t0) > 30*time.Second {
				b.Fatalf("%s not searchable after 30 s", word)
			}
			time.Sleep(2 * time.Millisecond)
		}
		l = append(l, time.Since(t0))
	}
	l.report(b, 50, 95)
}
