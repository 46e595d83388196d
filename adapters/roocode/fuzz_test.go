package roocode

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/cline"
)

// FuzzRead feeds arbitrary documents to Read as a task's history item, model history and UI
// records, whole and cut short: no panic, and every stream passes the store's validator.
func FuzzRead(f *testing.F) {
	dir := filepath.Join("testdata", ExtensionID, "tasks", "0197a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b")
	for _, name := range []string{cline.APIHistoryFile, cline.UIMessagesFile, cline.HistoryItemFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint16(len(b)/2))
	}
	f.Add([]byte(`{"version":2,"messages":[{"role":"tool","content":[{"type":"tool-result","output":{"value":"[ERROR]"}}]},{"type":"reasoning"},{"role":"assistant","content":[{"type":"tool-call","input":7}]}]}`), uint16(40))
	f.Add([]byte(`{"id":"x","parentTaskId":"../p","ts":"no","workspace":7}`), uint16(9))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		n := min(int(cut), len(data))
		for _, doc := range [][]byte{data, data[:n]} {
			root := t.TempDir()
			task := filepath.Join(root, "tasks", "0197a1b2-0000-7000-8000-000000000000")
			if err := os.MkdirAll(task, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{cline.APIHistoryFile, cline.UIMessagesFile, cline.HistoryItemFile} {
				if err := os.WriteFile(filepath.Join(task, name), doc, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			env := adaptertest.FakeEnv("linux", t.TempDir(), nil)
			env.Limits = adapters.Limits{LineBytes: 1 << 20}
			var c adaptertest.Collector
			adaptertest.ReadRoot(t, Adapter{}, env, root, nil, &c)
		}
	})
}
