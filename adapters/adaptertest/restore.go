package adaptertest

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// Transcripts are the collected sessions as the store reads them back for a restore, by
// session id: each message (its first emission) in timestamp then id order, its parts by
// ordinal.
func (c *Collector) Transcripts() map[string]*restore.Transcript {
	out := map[string]*restore.Transcript{}
	for id, s := range c.Sessions() {
		out[id] = &restore.Transcript{Session: s, Parts: map[string][]session.Part{}}
	}
	for _, m := range c.Messages() {
		if t := out[m.SessionID]; t != nil {
			t.Messages = append(t.Messages, m)
		}
	}
	for _, p := range c.Parts() {
		if t := out[p.SessionID]; t != nil {
			t.Parts[p.MessageID] = append(t.Parts[p.MessageID], p)
		}
	}
	for _, t := range out {
		sort.SliceStable(t.Messages, func(i, j int) bool {
			a, b := t.Messages[i], t.Messages[j]
			if !a.Timestamp.Equal(b.Timestamp) {
				return a.Timestamp.Before(b.Timestamp)
			}
			return a.ID < b.ID
		})
		for _, ps := range t.Parts {
			sort.SliceStable(ps, func(i, j int) bool { return ps[i].Ordinal < ps[j].Ordinal })
		}
	}
	return out
}

// Events is a transcript as an event stream: the session, then each message and its parts.
func Events(t *restore.Transcript) []session.Event {
	out := []session.Event{{Session: &t.Session}}
	for i := range t.Messages {
		m := &t.Messages[i]
		out = append(out, session.Event{Message: m})
		parts := t.Parts[m.ID]
		for j := range parts {
			out = append(out, session.Event{Part: &parts[j]})
		}
	}
	return out
}

// CheckNativeRestore compares a native restore, read back by the agent's own adapter (back),
// with the stored events of the sessions it restores (want): every file native (or downgraded
// only for where it can be resumed from), nothing malformed, and the same sessions, messages
// and parts up to where the files were read from. dropSource: the restore is not the agent's
// own layout (OpenCode's import documents, unpacked), so the raw records are not compared.
//
// A native restore may also rebuild a session, under a new id, where the agent resumes from
// (Hermes resumes only from its store, not from the legacy files it once wrote): such a file is
// foreign and names a session of its own, which must be read back with the restore mark naming
// the stored session, and is left out of the comparison.
func CheckNativeRestore(t testing.TB, want []session.Event, files []restore.File, back *Collector, dropSource bool) {
	t.Helper()
	rebuilt := map[string]string{} // a rebuild's id → the stored session it rebuilds
	for _, f := range files {
		if !f.Sidecar && f.Fidelity == restore.Foreign && f.ID != f.Session {
			rebuilt[f.ID] = f.Session
			continue
		}
		// The fixtures' working directories do not exist here, which a restore under --out-dir
		// reports as a downgrade; nothing else may be lost.
		if !f.Sidecar && f.Fidelity != restore.Native && !OnlyPlaceMissing(f.Reason) {
			t.Errorf("%s: fidelity %s (%s), want native", f.Path, f.Fidelity, f.Reason)
		}
	}
	if len(back.Bad) > 0 {
		t.Errorf("re-reading the restore reported malformed records: %v", back.Bad)
	}
	if len(rebuilt) > 0 {
		var kept []session.Event
		found := map[string]bool{}
		for _, e := range back.Events {
			of, ok := rebuilt[e.Key().SessionID]
			if !ok {
				kept = append(kept, e)
				continue
			}
			if e.Session != nil {
				if from := restoredFrom(e.Session); from != of {
					t.Errorf("session %s, rebuilt from %s, is read back restored from %q", e.Session.ID, of, from)
				}
				found[e.Session.ID] = true
			}
		}
		for id, of := range rebuilt {
			if !found[id] {
				t.Errorf("session %s, rebuilt from %s, is not read back", id, of)
			}
		}
		back = &Collector{Events: kept}
	}
	wantC := canonical(t, want, dropSource)
	for _, f := range files {
		if strings.Contains(f.Reason, "no place in an import document") {
			// Reported as lost: OpenCode's session_message rows.
			for k := range wantC {
				if strings.Contains(k, "/session_message:") {
					delete(wantC, k)
				}
			}
		}
	}
	renamed, byContent := back.Events, false
	for _, f := range files {
		if strings.Contains(f.Reason, restore.IDFromFileName) {
			// Ids made from a digest of the session's name change with it: compare what the
			// records say.
			renamed, byContent = renameSession(back.Events, f.Session, want), true
		}
	}
	gotC := canonical(t, renamed, dropSource)
	if byContent {
		wantC, gotC = withoutIDs(wantC), withoutIDs(gotC)
	}
	if diff := cmp.Diff(wantC, gotC); diff != "" {
		t.Errorf("session %s: restored copy differs (-stored +restored):\n%s", files[0].Session, diff)
	}
}

// OnlyPlaceMissing reports whether a downgrade's reasons are all about where the session can be
// resumed from, not about its content.
func OnlyPlaceMissing(reason string) bool {
	for _, r := range strings.Split(reason, "; ") {
		if !strings.Contains(r, "working directory") && !strings.HasPrefix(r, "left out ") && r != restore.IDFromFileName && !strings.Contains(r, "no place in an import document") {
			return false
		}
	}
	return true
}

// canonical renders events as comparable JSON by key, leaving out what legitimately depends on
// where a file was read from (its path, the store's ingest stamp).
func canonical(t testing.TB, events []session.Event, dropSource bool) map[string]string {
	out := map[string]string{}
	for _, e := range events {
		if _, seen := out[e.Key().String()]; seen {
			continue // a re-emission (before more parts); the first one carries the record
		}
		var o *session.Options
		switch {
		case e.Session != nil:
			s := *e.Session
			s.Options = s.Options.Clone()
			e.Session, o = &s, &s.Options
		case e.Message != nil:
			m := *e.Message
			m.Options = m.Options.Clone()
			e.Message, o = &m, &m.Options
		case e.Part != nil:
			p := *e.Part
			p.Options = p.Options.Clone()
			e.Part, o = &p, &p.Options
		}
		if *o != nil {
			delete(*o, "pond")
			if dropSource {
				delete(*o, "source")
			} else if src, ok := (*o)["source"]; ok {
				var m map[string]json.RawMessage
				if json.Unmarshal(src, &m) == nil {
					for _, k := range []string{"path", "file", "db", "project_dir", "file_name_id"} {
						delete(m, k)
					}
					(*o)["source"], _ = json.Marshal(m)
				}
			}
			if len(*o) == 0 {
				*o = nil
			}
		}
		if dropSource && e.Message != nil && e.Message.Role == session.RoleSystem {
			// OpenCode rows kept as system messages (step-start, …) take their time from the
			// row's time_created, which an import document does not carry.
			e.Message.Timestamp = time.Time{}
		}
		if dropSource && e.Part != nil {
			// OpenCode orders parts by id; hand-made legacy trees name their files otherwise.
			e.Part.Ordinal = 0
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		_ = json.Unmarshal(b, &v)
		b, _ = json.Marshal(v)
		out[e.Key().String()] = string(b)
	}
	return out
}

// renameSession gives the one restored session the stored events do not know the stored id
// it was restored from (a session named after its file gets the agent's file name).
func renameSession(events []session.Event, to string, want []session.Event) []session.Event {
	known := map[string]bool{}
	for _, e := range want {
		known[e.Key().SessionID] = true
	}
	out := make([]session.Event, 0, len(events))
	for _, e := range events {
		switch {
		case e.Session != nil && !known[e.Session.ID]:
			s := *e.Session
			s.ID = to
			e.Session = &s
		case e.Message != nil && !known[e.Message.SessionID]:
			m := *e.Message
			m.SessionID = to
			e.Message = &m
		case e.Part != nil && !known[e.Part.SessionID]:
			p := *e.Part
			p.SessionID = to
			e.Part = &p
		}
		out = append(out, e)
	}
	return out
}

// withoutIDs keys canonical objects by their content without message and part ids.
func withoutIDs(c map[string]string) map[string]string {
	out := map[string]string{}
	for _, v := range c {
		var m map[string]any
		_ = json.Unmarshal([]byte(v), &m)
		if m["kind"] != "session" {
			delete(m, "id")
			delete(m, "message_id")
		}
		b, _ := json.Marshal(m)
		out[string(b)] = string(b)
	}
	return out
}

// restoredFrom is the stored session a session's restore mark names (adapters.ApplyRestoreMark).
func restoredFrom(s *session.Session) string {
	var o struct {
		RestoredFrom struct {
			Session string `json:"session"`
		} `json:"restored_from"`
	}
	_ = json.Unmarshal(s.Options["pond"], &o)
	return o.RestoredFrom.Session
}
