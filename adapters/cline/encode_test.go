package cline

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters/restore"
)

// TestEncodeNative: the genuine session and its sub-agent land in their SDK folder, the
// manifest's messages_path pointing at the restored messages, resumed by `cline --id`.
func TestEncodeNative(t *testing.T) {
	ts := readFixture(t).Transcripts()
	root := t.TempDir()
	p, err := Adapter{}.Encode(&restore.Job{Batch: []*restore.Transcript{ts[liveID], ts[subID]}, Native: true, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "sessions", liveID)
	var got []string
	for _, f := range p.Files {
		rel, _ := filepath.Rel(dir, f.Path)
		got = append(got, rel+" "+string(f.Fidelity))
		if filepath.Base(f.Path) == liveID+".json" {
			var m struct {
				MessagesPath string `json:"messages_path"`
				SessionID    string `json:"session_id"`
			}
			if err := json.Unmarshal(f.Data, &m); err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(dir, liveID+messagesSuffix); m.MessagesPath != want || m.SessionID != liveID {
				t.Errorf("manifest names %s, %s; want %s, %s", m.SessionID, m.MessagesPath, liveID, want)
			}
		}
	}
	want := []string{liveID + messagesSuffix + " native", liveID + ".json native", "agent_1796216299500_ab12c.messages.json native"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{"cline", "--id", liveID}}, p.Argv); diff != "" {
		t.Errorf("argv (-want +got):\n%s", diff)
	}
}

// TestEncodeForeign: another agent's session becomes an SDK session with an SDK-shaped id.
func TestEncodeForeign(t *testing.T) {
	ts := readFixture(t).Transcripts()
	tr := ts[legacyID]
	p, err := Adapter{}.Encode(&restore.Job{Batch: []*restore.Transcript{tr}, Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if want := "1770858773985_" + restore.ShortHash(legacyID, 5); p.ID != want {
		t.Errorf("id %s, want %s", p.ID, want)
	}
	if len(p.Files) != 2 || p.Files[0].Fidelity != restore.Foreign {
		t.Errorf("files %+v, want the messages and the manifest, foreign", p.Files)
	}
}

// TestEncodeNativeTask: a legacy task goes back to its folder as it was and is rebuilt beside it
// as an SDK session under a new id, the one `cline --id` is given (cline reads no task folder).
func TestEncodeNativeTask(t *testing.T) {
	ts := readFixture(t).Transcripts()
	root := t.TempDir()
	p, err := Adapter{}.Encode(&restore.Job{Batch: []*restore.Transcript{ts[legacyID]}, Native: true, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	id := foreignID(ts[legacyID])
	if diff := cmp.Diff([][]string{{"cline", "--id", id}}, p.Argv); diff != "" || p.ID != id {
		t.Errorf("id %s, argv (-want +got):\n%s", p.ID, diff)
	}
	var task, rebuilt int
	for _, f := range p.Files {
		rel, _ := filepath.Rel(root, f.Path)
		switch {
		case strings.HasPrefix(rel, filepath.Join("tasks", legacyID)+"/") && f.Fidelity == restore.Native && f.ID == legacyID:
			task++
		case rel == filepath.Join("sessions", id, id+messagesSuffix) && f.Fidelity == restore.Foreign && f.ID == id && f.Session == legacyID:
			rebuilt++
		}
	}
	if task == 0 || rebuilt != 1 {
		t.Errorf("%d task files replayed, %d SDK rebuilds; want some and 1: %+v", task, rebuilt, p.Files)
	}
}
