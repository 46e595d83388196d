package cline

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
)

func TestRoots(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  adapters.Env
		want []string
	}{
		{"linux", adaptertest.FakeEnv("linux", "/home/u", nil), []string{
			"/home/u/.cline/data",
			"/home/u/.config/Code/User/globalStorage/saoudrizwan.claude-dev",
			"/home/u/.config/Code - Insiders/User/globalStorage/saoudrizwan.claude-dev",
			"/home/u/.config/VSCodium/User/globalStorage/saoudrizwan.claude-dev",
			"/home/u/.config/Cursor/User/globalStorage/saoudrizwan.claude-dev",
			"/home/u/.config/Windsurf/User/globalStorage/saoudrizwan.claude-dev",
		}},
		{"data-dir", adaptertest.FakeEnv("linux", "/home/u", map[string]string{"CLINE_DATA_DIR": "/d", "CLINE_DIR": "/c", "XDG_CONFIG_HOME": "/x"}), []string{
			"/d",
			"/x/Code/User/globalStorage/saoudrizwan.claude-dev",
			"/x/Code - Insiders/User/globalStorage/saoudrizwan.claude-dev",
			"/x/VSCodium/User/globalStorage/saoudrizwan.claude-dev",
			"/x/Cursor/User/globalStorage/saoudrizwan.claude-dev",
			"/x/Windsurf/User/globalStorage/saoudrizwan.claude-dev",
		}},
		{"cline-dir", adaptertest.FakeEnv("darwin", "/Users/u", map[string]string{"CLINE_DIR": "/c"}), []string{
			"/c/data",
			"/Users/u/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev",
			"/Users/u/Library/Application Support/Code - Insiders/User/globalStorage/saoudrizwan.claude-dev",
			"/Users/u/Library/Application Support/VSCodium/User/globalStorage/saoudrizwan.claude-dev",
			"/Users/u/Library/Application Support/Cursor/User/globalStorage/saoudrizwan.claude-dev",
			"/Users/u/Library/Application Support/Windsurf/User/globalStorage/saoudrizwan.claude-dev",
		}},
		{"windows", adaptertest.FakeEnv("windows", `C:\Users\u`, map[string]string{"APPDATA": `C:\Users\u\AppData\Roaming`}), []string{
			`C:\Users\u\.cline\data`,
			`C:\Users\u\AppData\Roaming\Code\User\globalStorage\saoudrizwan.claude-dev`,
			`C:\Users\u\AppData\Roaming\Code - Insiders\User\globalStorage\saoudrizwan.claude-dev`,
			`C:\Users\u\AppData\Roaming\VSCodium\User\globalStorage\saoudrizwan.claude-dev`,
			`C:\Users\u\AppData\Roaming\Cursor\User\globalStorage\saoudrizwan.claude-dev`,
			`C:\Users\u\AppData\Roaming\Windsurf\User\globalStorage\saoudrizwan.claude-dev`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Adapter{}.Roots(tc.env)); diff != "" {
				t.Errorf("roots (-want +got):\n%s", diff)
			}
		})
	}
}

// TestScanLists: the SDK sessions and their sub-agents, the legacy task, the older copy of an
// SDK session superseded, and the sessions.db row without files unsupported.
func TestScanLists(t *testing.T) {
	root, env := fixture(t)
	srcs, err := Adapter{}.Scan(t.Context(), env, root)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range srcs {
		got[s.Key] = s.Skip
	}
	want := map[string]string{
		"sessions/" + forkID: "",
		"sessions/" + liveID: "",
		"sessions/" + liveID + "/agent_1796216299500_ab12c.messages.json": "",
		"sessions/" + truncID:           "",
		"tasks/" + legacyID:             "",
		"tasks/" + forkID:               adapters.SkipSuperseded,
		"db#db/sessions.db#" + dbOnlyID: adapters.SkipUnsupported,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
}

// TestEditorTaskSuperseded: a task in an editor's folder that the data dir also holds is
// listed as superseded there.
func TestEditorTaskSuperseded(t *testing.T) {
	home := t.TempDir()
	env := adaptertest.FakeEnv("linux", home, nil)
	data, editor := Adapter{}.Roots(env)[0], Adapter{}.Roots(env)[1]
	adaptertest.CopyFixture(t, Adapter{}, data, func(string, string) error { return nil })
	for _, dir := range []string{editor + "/tasks/" + legacyID, editor + "/tasks/9999"} {
		mkfile(t, dir+"/"+APIHistoryFile, `[{"role":"user","content":"hi"}]`)
	}
	srcs, err := Adapter{}.Scan(t.Context(), env, editor)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range srcs {
		got[s.Key] = s.Skip
	}
	if diff := cmp.Diff(map[string]string{"tasks/" + legacyID: adapters.SkipSuperseded, "tasks/9999": ""}, got); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
}

// TestTruncated: a messages document cut short mid-message is reported once, at its file, and
// the messages before the cut are read.
func TestTruncated(t *testing.T) {
	c := readFixture(t)
	if len(c.Bad) != 1 || c.Bad[0].At.Path == "" {
		t.Fatalf("malformed reports %v, want one", c.Bad)
	}
	var users int
	for _, m := range c.Messages() {
		if m.SessionID == truncID && m.Role == "user" {
			users++
		}
	}
	if users != 1 {
		t.Errorf("%d user messages read before the cut, want 1", users)
	}
}

// TestLineage: the sub-agent is a session of its own under its root; the fork names its origin.
func TestLineage(t *testing.T) {
	ss := readFixture(t).Sessions()
	for id, want := range map[string][2]string{
		subID:    {liveID, SubagentAgent},
		forkID:   {"1784094053271_p8pzo", Name},
		liveID:   {"", Name},
		legacyID: {"", Name},
	} {
		s, ok := ss[id]
		if !ok {
			t.Errorf("no session %s", id)
			continue
		}
		if s.ParentSessionID != want[0] || s.SourceAgent != want[1] {
			t.Errorf("%s: parent %q agent %q, want %q %q", id, s.ParentSessionID, s.SourceAgent, want[0], want[1])
		}
	}
}
