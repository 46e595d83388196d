package qwen

import (
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
)

const (
	// The genuine session: Qwen Code 0.24.4 against a fake Anthropic API, a read_file call, an
	// agent call (its sub-agent transcript beside it), then a resume with one more prompt.
	liveID  = "3dc64768-577f-4496-8b63-0debd6fae1f7"
	liveKey = "projects/-tmp-pond-qwen-demo/chats/" + liveID + ".jsonl"
	// The hand-made session: what the genuine one lacks (lineage records, fragments, thoughts,
	// images, hook context, a notification, a record without uuid, drift, a torn line).
	demoID  = "5b1e0c2a-7d4f-4e8a-9c3b-2f6a1d0e9b8c"
	demoKey = "projects/-srv-demo/chats/" + demoID + ".jsonl"
)

var testEnv = adaptertest.FakeEnv("linux", "/home/nobody", nil)

// readTestdata reads every source under testdata.
func readTestdata(t *testing.T) *adaptertest.Collector {
	t.Helper()
	var c adaptertest.Collector
	adaptertest.ReadRoot(t, Adapter{}, testEnv, "testdata", nil, &c)
	return &c
}

// readFile reads one file as a source under key.
func readFile(t testing.TB, key, path string, cur adapters.Cursor, c *adaptertest.Collector) adapters.Cursor {
	t.Helper()
	return adaptertest.ReadSource(t, Adapter{}, testEnv, key, path, cur, c)
}

// partView is what the table tests compare of a part.
type partView struct {
	ID, Type, Prov, Text, CallID, Name string
	Failure                            bool
}

func viewParts(parts []session.Part) []partView {
	var out []partView
	for _, p := range parts {
		out = append(out, partView{p.ID, string(p.Type), string(p.Provenance), p.Text, p.CallID, p.Name, p.IsFailure})
	}
	return out
}
