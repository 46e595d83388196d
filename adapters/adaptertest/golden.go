package adaptertest

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/session"
)

// CheckGolden renders events one JSON object a line and compares them with the golden file;
// with update it rewrites the file first. Raw source records (options.source.record) are left
// out: they are the input files themselves, which adapters check line by line.
func CheckGolden(t testing.TB, golden string, events []session.Event, update bool) {
	t.Helper()
	var b bytes.Buffer
	for _, e := range events {
		line, err := json.Marshal(WithoutRecord(e))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("events differ from %s (-want +got):\n%s", golden, diff)
	}
}

// WithoutRecord copies an event, dropping options.source.record.
func WithoutRecord(e session.Event) session.Event {
	strip := func(o session.Options) session.Options {
		var src map[string]json.RawMessage
		if json.Unmarshal(o["source"], &src) != nil || src["record"] == nil {
			return o
		}
		delete(src, "record")
		o = o.Clone()
		o["source"], _ = json.Marshal(src)
		return o
	}
	switch {
	case e.Session != nil:
		s := *e.Session
		s.Options = strip(s.Options)
		e.Session = &s
	case e.Message != nil:
		m := *e.Message
		m.Options = strip(m.Options)
		e.Message = &m
	case e.Part != nil:
		p := *e.Part
		p.Options = strip(p.Options)
		e.Part = &p
	}
	return e
}
