package jsonl

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pondhq/pond/adapters"
)

func readAll(t *testing.T, path string, cur adapters.Cursor) (lines []string, resumed bool, next adapters.Cursor) {
	t.Helper()
	f, err := Open(path, cur)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	next, err = f.Lines(context.Background(), func(line []byte, no int) error {
		lines = append(lines, string(line))
		return nil
	})
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
	err := Each(context.Background(), strings.NewReader("x\n\ny\nz"), func(line []byte, no int) error {
		got = append(got, no)
		return nil
	})
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
		jf, err := Open(path, adapters.Cursor{Offset: off, Anchor: "x"})
		if err != nil {
			t.Fatal(err)
		}
		defer jf.Close()
		cur, err := jf.Lines(context.Background(), func([]byte, int) error { return nil })
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
	jf, err := Open(path, cur)
	if err != nil {
		t.Fatal(err)
	}
	defer jf.Close()
	var nos []int
	next, err := jf.Lines(context.Background(), func(line []byte, no int) error { nos = append(nos, no); return nil })
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
		f, err := Open(path, adapters.Cursor{})
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.Lines(context.Background(), fn)
		return err
	})
	check("Each", func(fn func([]byte, int) error) error {
		return Each(context.Background(), strings.NewReader(b.String()), fn)
	})
}
