package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rowsOf is one session of n messages whose search text is about size bytes each.
func rowsOf(session string, n, size int, seq *int64) *Rows {
	r := &Rows{}
	*seq++
	r.Sessions = append(r.Sessions, SessionRow{SessionID: session, SourceAgent: "pi-coding-agent", CreatedAt: "2026-06-01T09:00:00.000000Z", Project: "/p", IngestSeq: *seq})
	text := strings.Repeat("checkpoint the write ahead log ", size/30)
	for i := 0; i < n; i++ {
		*seq++
		r.Messages = append(r.Messages, MessageRow{SessionID: session, MessageID: fmt.Sprintf("m%04d", i), Timestamp: "2026-06-01T09:00:01.000000Z",
			Role: "user", SourceAgent: "pi-coding-agent", Project: "/p", SearchText: text, IngestSeq: *seq})
	}
	return r
}

// The writer leaves copying the log to the checkpointer: the rows reach the database file while
// the writer's connection stays open.
func TestCheckpointerCopiesTheLog(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mirror.db")
	m, err := OpenMirror(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st, _ := os.Stat(path)
	before := st.Size()
	var seq int64
	for i := 0; i < 4; i++ {
		if err := m.Apply(ctx, rowsOf(fmt.Sprint("s", i), 100, 4000, &seq)); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		st, _ := os.Stat(path)
		if st.Size() > before+1<<20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("database file still %d bytes (%d before): the log was not copied", st.Size(), before)
		}
	}
}

// With the log over its bound, the writer checkpoints in line before its next transaction.
func TestWriterSettlesALongLog(t *testing.T) {
	ctx := context.Background()
	m := tempMirror(t)
	var seq int64
	if err := m.Apply(ctx, rowsOf("s0", 50, 4000, &seq)); err != nil {
		t.Fatal(err)
	}
	m.ckpt.close() // only the writer checkpoints from here on
	m.ckpt.log.Store(maxLogFrames + 1)
	if err := m.Apply(ctx, rowsOf("s1", 50, 4000, &seq)); err != nil {
		t.Fatal(err)
	}
	if got := m.ckpt.log.Load(); got > maxLogFrames {
		t.Fatalf("log length %d after a write over the bound: the writer did not checkpoint", got)
	}
	var busy, log, copied int64
	if err := m.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log, &copied); err != nil {
		t.Fatal(err)
	}
	if log == 0 {
		t.Fatal("the log is empty: the writer's own transaction did not go through it")
	}
}
