//go:build linux

package cursor

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store/sqlite"
)

// BenchmarkIncrementalSync is a pass over a large IDE database (POND_CURSOR_BENCH_MB, default
// 32 MB; the docs' numbers use 400) after one of its chats gained a bubble: the cost of a sync
// while Cursor is in use. It reports the database's size, the events emitted (one chat's) and
// the peak RSS of the pass itself (VmHWM, reset before it through /proc/self/clear_refs).
// BenchmarkFullRead is the first pass over the same database, for comparison.
func BenchmarkIncrementalSync(b *testing.B) {
	root, db := benchDB(b)
	env := adapters.Env{GOOS: "linux", OpenSQLite: sqlite.OpenAgentDB}
	cur := benchRead(b, env, root, adapters.Cursor{}, &discard{})
	b.ResetTimer()
	var peak int64
	var cpu time.Duration
	for i := range b.N {
		b.StopTimer()
		id := fmt.Sprintf("%08x-0000-4000-8000-000000000000", (i*7919)%benchComposers)
		write(b, db, `INSERT INTO cursorDiskKV VALUES('bubbleId:`+id+`:more-`+strconv.Itoa(i)+`','{"_v":3,"type":1,"text":"one more question","createdAt":"2025-12-01T12:00:00Z"}')`)
		resetPeak()
		var out discard
		c0 := cpuTime()
		b.StartTimer()
		cur = benchRead(b, env, root, cur, &out)
		b.StopTimer()
		cpu += cpuTime() - c0
		peak = max(peak, peakRSS())
		if out.sessions != 1 {
			b.Fatalf("pass %d emitted %d sessions, want the changed one", i, out.sessions)
		}
		b.ReportMetric(float64(out.events), "events/op")
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MB")
	b.ReportMetric(float64(fileSize(db))/(1<<20), "db-MB")
	b.ReportMetric(float64(len(cur.State))/1024, "cursor-KB")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

func BenchmarkFullRead(b *testing.B) {
	root, db := benchDB(b)
	env := adapters.Env{GOOS: "linux", OpenSQLite: sqlite.OpenAgentDB}
	b.ResetTimer()
	var peak int64
	var cpu time.Duration
	for range b.N {
		resetPeak()
		var out discard
		c0 := cpuTime()
		benchRead(b, env, root, adapters.Cursor{}, &out)
		cpu += cpuTime() - c0
		peak = max(peak, peakRSS())
		if out.sessions != benchComposers {
			b.Fatalf("read %d sessions, want %d", out.sessions, benchComposers)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MB")
	b.ReportMetric(float64(fileSize(db))/(1<<20), "db-MB")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

const benchComposers = 400

// benchDB builds (once per size, under the test cache's temp folder) a global database of
// benchComposers chats whose bubbles carry enough tool output to reach the size asked for.
func benchDB(b *testing.B) (root, db string) {
	b.Helper()
	mb := 32
	if v, err := strconv.Atoi(os.Getenv("POND_CURSOR_BENCH_MB")); err == nil && v > 0 {
		mb = v
	}
	root = filepath.Join(os.TempDir(), fmt.Sprintf("pond-cursor-bench-%dmb", mb))
	db = filepath.Join(root, filepath.FromSlash(globalDBRel))
	if fileSize(db) > 0 {
		return root, db
	}
	os.RemoveAll(root)
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		b.Fatal(err)
	}
	const bubbles = 60
	pad := strings.Repeat("output line of a tool run, kept in toolFormerData.result\\n", mb<<20/(benchComposers*bubbles/2)/58+1)
	if err := sqlite.CreateFromScript(db, "PRAGMA journal_mode=WAL;\n"+cursorSchema); err != nil {
		b.Fatal(err)
	}
	err := sqlite.WriteAgentDB(db, func(tx *sql.Tx) error {
		st, err := tx.Prepare(`INSERT INTO cursorDiskKV VALUES(?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for c := range benchComposers {
			id := fmt.Sprintf("%08x-0000-4000-8000-000000000000", c)
			var headers []string
			for k := range bubbles {
				bid := fmt.Sprintf("b%04d", k)
				typ := 1 + k%2
				headers = append(headers, fmt.Sprintf(`{"bubbleId":%q,"type":%d}`, bid, typ))
				v := fmt.Sprintf(`{"_v":3,"type":%d,"bubbleId":%q,"text":"turn %d of chat %d","createdAt":"2025-12-01T12:%02d:%02dZ"`, typ, bid, k, c, k/60, k%60)
				if typ == 2 {
					v += `,"toolFormerData":{"toolCallId":"t` + bid + `","name":"run_terminal_cmd","status":"completed","rawArgs":"{\"command\":\"go test\"}","result":"` + pad + `"}`
				}
				if _, err := st.Exec(bubblePrefix+id+":"+bid, v+"}"); err != nil {
					return err
				}
			}
			rec := fmt.Sprintf(`{"_v":10,"composerId":%q,"createdAt":1764590400000,"lastUpdatedAt":1764590460000,"fullConversationHeadersOnly":[%s]}`, id, strings.Join(headers, ","))
			if _, err := st.Exec(composerPrefix+id, rec); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return root, db
}

func benchRead(b *testing.B, env adapters.Env, root string, cur adapters.Cursor, out adapters.Emitter) adapters.Cursor {
	src, err := scanIDE(root)
	if err != nil || src == nil {
		b.Fatal(src, err)
	}
	next, err := New().Read(context.Background(), env, *src, cur, out)
	if err != nil {
		b.Fatal(err)
	}
	return next
}

// discard counts events and keeps none, as the sync engine's batches do not outlive a pass.
type discard struct{ sessions, events int }

func (d *discard) Event(e session.Event) error {
	d.events++
	if e.Session != nil {
		d.sessions++
	}
	return nil
}
func (*discard) Malformed(adapters.Location, error) {}
func (*discard) Unknown(adapters.Location, string)  {}

func fileSize(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// cpuTime is the CPU time (user and system) the process has used: under a loaded machine's
// scheduling, a steadier measure of a pass than its wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// resetPeak resets the process's peak RSS (Linux; elsewhere nothing).
func resetPeak() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is the process's peak RSS in bytes since the last resetPeak (VmHWM); 0 elsewhere.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
