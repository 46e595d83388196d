package opencode

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pondhq/pond/adapters/restore"
)

// ReadBackRoot implements restore.ReadBacker: each restored export document becomes the legacy
// JSON tree (session, message and part files) under dir/storage, holding what
// `opencode import` inserts, in a form the adapter reads.
func (Adapter) ReadBackRoot(files []restore.File, dir string) (string, error) {
	for _, f := range files {
		if err := unpackExport(f.Path, filepath.Join(dir, "storage")); err != nil {
			return "", err
		}
	}
	return dir, nil
}

func unpackExport(doc, storage string) error {
	b, err := os.ReadFile(doc)
	if err != nil {
		return err
	}
	var d struct {
		Info     map[string]json.RawMessage `json:"info"`
		Messages []struct {
			Info  map[string]json.RawMessage   `json:"info"`
			Parts []map[string]json.RawMessage `json:"parts"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return fmt.Errorf("%s: %w", doc, err)
	}
	str := func(v json.RawMessage) string {
		var s string
		json.Unmarshal(v, &s)
		return s
	}
	// The ids name files: a document whose ids are not plain names is not one Pond wrote.
	write := func(v any, parts ...string) error {
		for _, p := range parts {
			if !filepath.IsLocal(p) || filepath.Base(p) != p {
				return fmt.Errorf("%s: id %q is not a file name", doc, p)
			}
		}
		p := filepath.Join(append([]string{storage}, parts...)...) + ".json"
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return os.WriteFile(p, b, 0o600)
	}
	sid, project := str(d.Info["id"]), str(d.Info["projectID"])
	if project == "" {
		project = "global"
	}
	if err := write(d.Info, "session", project, sid); err != nil {
		return err
	}
	for _, m := range d.Messages {
		mid := str(m.Info["id"])
		if err := write(m.Info, "message", sid, mid); err != nil {
			return err
		}
		for _, p := range m.Parts {
			if err := write(p, "part", mid, str(p["id"])); err != nil {
				return err
			}
		}
	}
	return nil
}
