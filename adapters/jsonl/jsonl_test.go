package jsonl

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
)

func readAll(t *testing.T, path string, cur adapters.Cursor) (lines []string, resumed bool, next adapters.Cursor) {
	t.Helper()
	f, err := Open(path, cur, adapters.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	next, err = f.Lines(context.Background(), func(line []byte, no int) error {
		lines = append(lines, string(line))
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return lines, f.Resumed(), next
}

func TestIncrementalRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	appendTo := func(s string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}

	write("{\"a\":1}\n\n{\"a\":2}\n{\"a\":")
	lines, resumed, cur := readAll(t, path, adapters.Cursor{})
	if strings.Join(lines, "|") != `{"a":1}|{"a":2}` || resumed || cur.Line != 3 {
		t.Fatalf("first read: %q resumed=%v line=%d; want two lines, the half-written third left", lines, resumed, cur.Line)
	}

	appendTo("3}\n{\"a\":4}")
	lines, resumed, cur = readAll(t, path, cur)
	if strings.Join(lines, "|") != `{"a":3}|{"a":4}` || !resumed || cur.Line != 5 {
		t.Fatalf("after append: %q resumed=%v line=%d; want the completed line and the complete unterminated one", lines, resumed, cur.Line)
	}

	// The earlier part changed: start over.
	write("{\"b\":1}\n{\"b\":2}\n{\"b\":3}\n{\"b\":4}\n{\"b\":5}\n")
	lines, resumed, _ = readAll(t, path, cur)
	if len(lines) != 5 || resumed {
		t.Fatalf("after rewrite: %d lines resumed=%v; want a full re-read", len(lines), resumed)
	}

	// Truncated below the cursor: start over.
	write("{\"c\":1}\n")
	lines, resumed, _ = readAll(t, path, cur)
	if len(lines) != 1 || resumed {
		t.Fatalf("after truncation: %q resumed=%v; want a full re-read", lines, resumed)
	}
}

func TestEach(t *testing.T) {
	var got []int
	err := Each(context.Background(), strings.NewReader("x\n\ny\nz"), "", 10, func(line []byte, no int) error {
		got = append(got, no)
		return nil
	}, nil)
	if err != nil || len(got) != 3 || got[2] != 4 {
		t.Fatalf("Each: lines %v, err %v; want [1 3 4]", got, err)
	}
}

func FuzzLines(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"a\""), int64(3))
	f.Add([]byte("\n\n\r\n{}"), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, off int64) {
		path := filepath.Join(t.TempDir(), "f.jsonl")
		os.WriteFile(path, data, 0o600)
		jf, err := Open(path, adapters.Cursor{Offset: off, Anchor: "x"}, adapters.Limits{LineBytes: 8})
		if err != nil {
			t.Fatal(err)
		}
		defer jf.Close()
		cur, err := jf.Lines(context.Background(), func([]byte, int) error { return nil }, func(adapters.Location, error) {})
		if err != nil {
			t.Fatal(err)
		}
		if cur.Offset > int64(len(data)) {
			t.Fatalf("offset %d past the end %d", cur.Offset, len(data))
		}
	})
}

// A complete last line consumed without its break keeps its number when the break arrives.
func TestLineNumbersAcrossUnterminatedLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(path, []byte("{\"a\":1}\n{\"a\":2}"), 0o600)
	_, _, cur := readAll(t, path, adapters.Cursor{})
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\n{\"a\":3}\n")
	f.Close()
	jf, err := Open(path, cur, adapters.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer jf.Close()
	var nos []int
	next, err := jf.Lines(context.Background(), func(line []byte, no int) error { nos = append(nos, no); return nil }, nil)
	if err != nil || len(nos) != 1 || nos[0] != 3 || next.Line != 3 {
		t.Fatalf("line numbers %v (cursor line %d), %v; want [3]", nos, next.Line, err)
	}
}

// TestLinesAreKept: the lines passed to fn stay as they were while later lines are read, so an
// adapter may hold records back without copying them.
func TestLinesAreKept(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		b.WriteString(`{"n":` + strings.Repeat("1", i%300+1) + "}\n")
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	check := func(name string, read func(fn func([]byte, int) error) error) {
		var kept [][]byte
		var copies []string
		if err := read(func(line []byte, _ int) error {
			kept, copies = append(kept, line), append(copies, string(line))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for i := range kept {
			if string(kept[i]) != copies[i] {
				t.Fatalf("%s: line %d changed after it was passed: %q, was %q", name, i+1, kept[i], copies[i])
			}
		}
	}
	check("Lines", func(fn func([]byte, int) error) error {
		f, err := Open(path, adapters.Cursor{}, adapters.Limits{})
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.Lines(context.Background(), fn, nil)
		return err
	})
	check("Each", func(fn func([]byte, int) error) error {
		return Each(context.Background(), strings.NewReader(b.String()), path, adapters.Limits{}.Line(), fn, nil)
	})
}

// TestLineCap: a line over the cap is reported at its line and passed over without being held
// (what reading it allocates stays far below its size); the cursor moves past it and the lines
// around it are read. Over the cap and still without its break, it waits like any half-written
// line.
func TestLineCap(t *testing.T) {
	const max = 1 << 20
	long := `{"text":"` + strings.Repeat("x", 32<<20) + `"}`
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte("{\"a\":1}\n"+long), 0o600); err != nil {
		t.Fatal(err)
	}
	read := func(cur adapters.Cursor) (lines []string, bad []adapters.Location, next adapters.Cursor, alloc uint64) {
		f, err := Open(path, cur, adapters.Limits{LineBytes: max})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		next, err = f.Lines(context.Background(), func(line []byte, no int) error {
			lines = append(lines, string(line[:min(len(line), 16)])) // never a long line in a failure
			return nil
		}, func(at adapters.Location, err error) {
			if !errors.Is(err, adapters.ErrTooLarge) {
				t.Errorf("report at %v: %v, want adapters.ErrTooLarge", at, err)
			}
			bad = append(bad, at)
		})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		return lines, bad, next, after.TotalAlloc - before.TotalAlloc
	}
	lines, bad, cur, _ := read(adapters.Cursor{})
	if len(lines) != 1 || len(bad) != 0 || cur.Line != 1 {
		t.Fatalf("with the long line unterminated: lines %q, reports %v, cursor line %d; want the first line only", lines, bad, cur.Line)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\n{\"a\":3}\n")
	f.Close()
	lines, bad, next, alloc := read(cur)
	if diff := cmp.Diff([]string{`{"a":3}`}, lines); diff != "" {
		t.Errorf("lines after the long one (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]adapters.Location{{Path: path, Line: 2}}, bad); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}
	if st, _ := os.Stat(path); next.Offset != st.Size() || next.Line != 3 {
		t.Errorf("cursor at %d (line %d), want past everything: %d (line 3)", next.Offset, next.Line, st.Size())
	}
	if alloc > 8*max {
		t.Errorf("reading past a %d-byte line allocated %d bytes; want a few times the %d-byte cap at most", len(long), alloc, max)
	}

	// Each does the same with a whole stream.
	var nos []int
	var reports []int
	data, _ := os.ReadFile(path)
	err := Each(context.Background(), bytes.NewReader(data), path, max, func(_ []byte, no int) error {
		nos = append(nos, no)
		return nil
	}, func(at adapters.Location, _ error) { reports = append(reports, at.Line) })
	if err != nil || !slices.Equal(nos, []int{1, 3}) || !slices.Equal(reports, []int{2}) {
		t.Errorf("Each: lines %v, reports %v, %v; want lines [1 3], a report at 2", nos, reports, err)
	}
}
