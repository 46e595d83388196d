package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
)

// TestGolden renders every event read from the testdata root, one JSON object a line, against
// testdata/events.golden (rewrite with -update). The raw records under options.source.record are
// left out: TestRead checks them against the files.
func TestGolden(t *testing.T) {
	var c adaptertest.Collector
	adaptertest.ReadRoot(t, New(), adapters.Env{}, testRoot, nil, &c)
	var b bytes.Buffer
	for _, e := range c.Events {
		line, err := json.Marshal(withoutRecord(e))
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

// withoutRecord copies a message event without options.source.record.
func withoutRecord(e session.Event) session.Event {
	if e.Message == nil {
		return e
	}
	var src map[string]json.RawMessage
	if json.Unmarshal(e.Message.Options["source"], &src) != nil {
		return e
	}
	delete(src, "record")
	m := *e.Message
	m.Options = m.Options.Clone()
	m.Options["source"], _ = json.Marshal(src)
	e.Message = &m
	return e
}
