package copilot

import (
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
)

const (
	// The genuine session: Copilot CLI 1.0.102 against Pond's fake model API (see
	// testdata/README.md), a bash call, a sub-agent (task) with a bash call of its own, then a
	// resume with a view call that fails.
	liveID  = "b90e7288-abd3-4faa-988f-f203fdb08b8c"
	liveKey = "session-state/" + liveID + "/events.jsonl"
	// The hand-made session: what the genuine one lacks (chunks, reasoning, attachments, a
	// failed call, notifications, a nested sub-agent, compaction, a user's own tool, drift, a
	// torn line, a repeated id, a resume).
	demoID  = "5f0c2a1e-8d7b-4c3a-9e21-6b4d8f0a1c2e"
	demoKey = "session-state/" + demoID + "/events.jsonl"
	flatID  = "3a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	flatKey = "session-state/" + flatID + ".jsonl"
	// A detached run continuing the genuine session.
	detachedID = "7c9e4d2a-1b3f-4e5d-8a6c-0f2e4b6d8a1c"

	agentA = "3e7d1c5b-9a2f-4b8e-a6d4-1c0f5e9b7a23"
	agentB = "8b2c6e4a-0d1f-4a7c-9e3b-5f6a2d8c1e47"
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
