package opencode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/store/sqlite"
)

// TestConformance runs the shared conformance suite on the fixture: the database built from
// testdata/opencode.sql and the legacy tree in testdata/storage.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Config{
		Adapter:    New(),
		Want:       adaptertest.Counts{Sessions: 6, Messages: 26, Parts: 29, Malformed: 4},
		OpenSQLite: sqlite.OpenAgentDB,
		CreateDB:   sqlite.CreateFromScript,
		ReadBack: func(t *testing.T, files []restore.File) string {
			tree := t.TempDir()
			for _, f := range files {
				unpackExport(t, f.Path, filepath.Join(tree, "storage"))
			}
			return tree
		},
	})
}

// unpackExport writes an export document as OpenCode's legacy JSON tree (session, message and
// part files): what `opencode import` inserts, in a form the adapter reads.
func unpackExport(t *testing.T, doc, storage string) {
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Info     map[string]json.RawMessage `json:"info"`
		Messages []struct {
			Info  map[string]json.RawMessage   `json:"info"`
			Parts []map[string]json.RawMessage `json:"parts"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	str := func(v json.RawMessage) string {
		var s string
		json.Unmarshal(v, &s)
		return s
	}
	write := func(rel string, v any) {
		p := filepath.Join(storage, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		b, _ := json.Marshal(v)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sid, project := str(d.Info["id"]), str(d.Info["projectID"])
	if project == "" {
		project = "global"
	}
	write("session/"+project+"/"+sid+".json", d.Info)
	for _, m := range d.Messages {
		mid := str(m.Info["id"])
		write("message/"+sid+"/"+mid+".json", m.Info)
		for _, p := range m.Parts {
			write("part/"+mid+"/"+str(p["id"])+".json", p)
		}
	}
}
