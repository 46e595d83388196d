package cline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
)

// FuzzRead feeds arbitrary documents to Read as an SDK session's messages, a sub-agent's, a
// manifest and a legacy task's model history and UI records, whole and cut short: no panic,
// and every stream passes the store's validator (the collector checks).
func FuzzRead(f *testing.F) {
	for _, p := range []string{
		"testdata/data/sessions/" + liveID + "/" + liveID + ".messages.json",
		"testdata/data/sessions/" + liveID + "/" + liveID + ".json",
		"testdata/data/sessions/" + liveID + "/agent_1796216299500_ab12c.messages.json",
		"testdata/data/tasks/" + legacyID + "/" + APIHistoryFile,
		"testdata/data/tasks/" + legacyID + "/" + UIMessagesFile,
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint16(len(b)/2))
	}
	f.Add([]byte(`{"version":2,"messages":[{"type":"reasoning","encrypted_content":"x"},{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","output":["[ERROR]",{"type":"text","value":"[ERROR] x"}]}]},{"role":"user","content":[7,null,{"type":"image","source":"s"},{"type":"file"}]}],"messages":[]}`), uint16(30))
	f.Add([]byte(`[{"role":"assistant","id":"../x","ts":-5,"content":[{"type":"tool_use","id":"","input":[[[]]]}]},{"role":"assistant","id":"../x"}]`), uint16(10))
	for _, v := range adaptertest.Hostile() {
		f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":`+v+`}]}]}`), uint16(20))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		n := min(int(cut), len(data))
		for _, doc := range [][]byte{data, data[:n]} {
			root := t.TempDir()
			sess := filepath.Join(root, "sessions", liveID)
			task := filepath.Join(root, "tasks", legacyID)
			for _, p := range []string{
				filepath.Join(sess, liveID+messagesSuffix),
				filepath.Join(sess, liveID+".json"),
				filepath.Join(sess, "agent_1.messages.json"),
				filepath.Join(task, APIHistoryFile),
				filepath.Join(task, UIMessagesFile),
				filepath.Join(task, HistoryItemFile),
			} {
				mkfile(t, p, string(doc))
			}
			env := adaptertest.FakeEnv("linux", t.TempDir(), nil)
			env.Limits = adapters.Limits{LineBytes: 1 << 20}
			var c adaptertest.Collector
			adaptertest.ReadRoot(t, Adapter{}, env, root, nil, &c)
		}
	})
}
