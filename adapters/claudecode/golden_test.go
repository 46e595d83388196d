package claudecode

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/session"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden renders every event read from testdata, one JSON object a line, against
// testdata/events.golden (rewrite with -update). The raw records under options.source.record
// are left out: TestReadKeepsEveryLine checks them against the files.
func TestGolden(t *testing.T) {
	c := readTestdata(t)
	var b bytes.Buffer
	for _, e := range c.Events {
		e = withoutRecords(e)
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	golden := filepath.Join("testdata", "events.golden")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("events differ from %s (-want +got):\n%s", golden, diff)
	}
}

// withoutRecords copies an event, dropping options.source.record.
func withoutRecords(e session.Event) session.Event {
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
