package lance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// Upkeep's work (index builds, compaction, pruning) runs on threads of its own at nice 10, so
// that searches and captures take the CPU first while it runs; nothing else is lowered. This
// looks at the threads after an index build and a compaction: the upkeep runtime's are there,
// every one at nice 10, and every other thread of the process still at the nice it started
// with.
func TestUpkeepRunsAtLowerPriority(t *testing.T) {
	ctx := context.Background()
	base := niceOf(t, "self")
	db, err := Open(ctx, LocalDir(t.TempDir()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}, {Name: "body", Type: arrow.BinaryTypes.String}}, nil)
	tbl, err := db.CreateTable(ctx, "m", schema)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	for k := range 3 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for i := range 100 {
			b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("m%d-%d", k, i))
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("river stone %d cloud %d", i, k))
		}
		appendBuilt(t, tbl, b)
	}
	if err := tbl.CreateIndex(ctx, IndexSpec{Column: "body", Kind: IndexFTS, Name: "body_fts", Replace: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Optimize(ctx, OptimizeSpec{Compact: true}); err != nil {
		t.Fatal(err)
	}
	tasks, err := filepath.Glob("/proc/self/task/*")
	if err != nil {
		t.Fatal(err)
	}
	upkeep := 0
	for _, task := range tasks {
		comm, err := os.ReadFile(filepath.Join(task, "comm"))
		if err != nil {
			continue // the thread ended meanwhile
		}
		name, nice := strings.TrimSpace(string(comm)), niceOf(t, "task/"+filepath.Base(task))
		switch {
		case name == "pond-upkeep":
			upkeep++
			if want := max(10, base); nice != want { // a process started nicer stays so
				t.Errorf("upkeep thread %s runs at nice %d, want %d", filepath.Base(task), nice, want)
			}
		case nice != base:
			t.Errorf("thread %s (%s) runs at nice %d, want the process's %d", filepath.Base(task), name, nice, base)
		}
	}
	if upkeep == 0 {
		t.Error("no pond-upkeep thread: the index build and compaction did not run on the upkeep runtime")
	}
}

// niceOf reads a thread's nice value from /proc/self/<path>/stat (field 19).
func niceOf(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc/self", strings.TrimPrefix(path, "self"), "stat"))
	if err != nil {
		t.Fatal(err)
	}
	// The command name (field 2) is in parentheses and may hold spaces: count from its end.
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	n, err := strconv.Atoi(fields[16])
	if err != nil {
		t.Fatal(err)
	}
	return n
}
