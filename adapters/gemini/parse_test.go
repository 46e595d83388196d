package gemini

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
)

var update = flag.Bool("update", false, "rewrite testdata/events.golden")

const (
	mainID  = "7f3c2a11-5b6e-4c1d-9a2f-0e8d4b3c2a10"
	subID   = "c0d1e2f3-aaaa-4bbb-8ccc-0123456789ab"
	oldID   = "2b9d4e01-6a7b-4c8d-9e0f-a1b2c3d4e5f6"
	v9ID    = "5e6f7a8b-1111-4222-8333-444455556666"
	notesID = "1a2b3c4d-0000-4111-8222-333344445555"
	mainRel = ".gemini/tmp/webapp/chats/session-2026-05-02T10-00-7f3c2a11.jsonl"
	oldRel  = ".gemini/tmp/0bf6933e8ef34a3bd42687dda8a365e4f876a36717528baf2e25a671d78459ae/chats/session-2025-11-03T09-15-2b9d4e01.json"
)

func TestSessions(t *testing.T) {
	c, _ := readHome(t, testHome, nil)
	type sess struct {
		Agent, Project, Parent string
		Created                time.Time
		Messages, Parts        int
	}
	got := map[string]sess{}
	for id, s := range c.Sessions() {
		got[id] = sess{Agent: s.SourceAgent, Project: s.Project, Parent: s.ParentSessionID, Created: s.CreatedAt}
	}
	for _, m := range c.Messages() {
		s := got[m.SessionID]
		s.Messages++
		got[m.SessionID] = s
	}
	for _, p := range c.Parts() {
		s := got[p.SessionID]
		s.Parts++
		got[p.SessionID] = s
	}
	at := func(s string) time.Time { t, _ := time.Parse(time.RFC3339Nano, s); return t }
	want := map[string]sess{
		// slug folder: .project_root marker
		mainID: {"gemini-cli", "/home/dev/webapp", "", at("2026-05-02T10:00:05.12Z"), 15, 15},
		// sub-agent: parent from the folder name, kind subagent
		subID: {"gemini-cli/subagent", "/home/dev/webapp", mainID, at("2026-05-02T10:01:33.1Z"), 3, 4},
		// slug folder known only to projects.json
		notesID: {"gemini-cli", "/home/dev/notes", "", at("2026-04-30T08:12:00Z"), 2, 2},
		// hash folder: a recorded directory hashes to the folder name
		oldID: {"gemini-cli", "/home/dev/oldproj", "", at("2025-11-03T09:15:00Z"), 5, 9},
		// short-hash folder nothing resolves: the agent's own key
		v9ID: {"gemini-cli", "9c1f4e2b7a6d8e03", "", at("2025-08-20T14:02:00Z"), 2, 2},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
}

func TestProblems(t *testing.T) {
	c, _ := readHome(t, testHome, nil)
	type problem struct {
		File string
		Line int
		What string
	}
	conv := func(ps []adaptertest.Problem) []problem {
		var out []problem
		for _, p := range ps {
			rel, _ := filepath.Rel(testHome, p.At.Path)
			out = append(out, problem{filepath.ToSlash(rel), p.At.Line, p.What})
		}
		return out
	}
	wantBad := []problem{{mainRel, 9, "malformed record: unexpected end of JSON input"}}
	if diff := cmp.Diff(wantBad, conv(c.Bad)); diff != "" {
		t.Errorf("malformed (-want +got):\n%s", diff)
	}
	wantDrift := []problem{{mainRel, 17, "record without id, $set, $rewindTo or sessionId"}}
	if diff := cmp.Diff(wantDrift, conv(c.Drift)); diff != "" {
		t.Errorf("unknown (-want +got):\n%s", diff)
	}
}

// describe renders a part for table comparisons.
func describe(p session.Part) string {
	s := fmt.Sprintf("%s %d %s", p.ID[strings.LastIndex(p.ID, ":")+1:], p.Ordinal, p.Type)
	switch p.Type {
	case session.PartText, session.PartReasoning:
		s += " " + p.Text
	case session.PartFile:
		s += fmt.Sprintf(" %s %s %d bytes", p.MediaType, p.Data.Kind, p.Data.Size())
	case session.PartToolCall:
		s += " " + p.CallID + " " + p.Name + " " + string(p.Params)
	case session.PartToolResult:
		s += fmt.Sprintf(" %s %s failure=%v result=%v", p.CallID, p.Name, p.IsFailure, p.Result != nil)
	}
	if p.Provenance != session.Conversational {
		s += " (" + string(p.Provenance) + ")"
	}
	return s
}

func TestMessages(t *testing.T) {
	c, _ := readHome(t, testHome, nil)
	tests := []struct {
		session, id string
		role        session.Role
		content     string
		parts       []string
	}{
		{mainID, "5c0e7a52-1f0b-4a8e-9d43-2b1f6f0a7c01", session.RoleUser, "", []string{
			"0 0 text Why does the login test fail? Screenshot attached.",
			"1 1 file image/png bytes 8 bytes",
		}},
		// written three times: the tokens line adds nothing, the third adds a call and its result
		{mainID, "8a1d3f60-2c4b-4e7a-b1d9-5e6f7a8b9c02", session.RoleAssistant, "", []string{
			"0 0 reasoning Reading the test\nI should look at the failing test first.",
			`1 1 tool_call read_file_1746180012877_0 read_file {"absolute_path":"/home/dev/webapp/test/login.test.ts"}`,
			"2 2 tool_result read_file_1746180012877_0 read_file failure=false result=true",
			`3 3 tool_call run_shell_command_1746180014210_0 run_shell_command {"command":"npm test -- login"}`,
			"4 4 tool_result run_shell_command_1746180014210_0 run_shell_command failure=true result=true",
		}},
		{mainID, "e4b2c9d1-7a3f-4d8e-a5b6-c7d8e9f0a103", session.RoleAssistant, "", []string{
			"0 0 reasoning Spotting the bug\nThe hash comparison uses the wrong type.",
			"1 1 text The login helper compares the password hash with `==` against a Buffer, so it is always false.",
		}},
		// rewound by the CLI, kept by the archive
		{mainID, "0f9e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e04", session.RoleUser, "", []string{"0 0 text Fix it in src/login.ts"}},
		{mainID, "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c05", session.RoleSystem, "Request cancelled.", nil},
		// introduced by a $set checkpoint: a turn the CLI made up
		{mainID, "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b08", session.RoleUser, "", []string{
			"0 0 text <state_snapshot>The user wants the login test fixed; the bug is in src/auth.ts.</state_snapshot> (injected)",
		}},
		{subID, "sa-gemini-0002", session.RoleAssistant, "", []string{
			`0 0 tool_call grep_search_1746180100600_0 grep_search {"pattern":"validateToken"}`,
			"1 1 tool_result grep_search_1746180100600_0 grep_search failure=false result=true",
		}},
		{oldID, "old-g1", session.RoleAssistant, "", []string{
			"0 0 reasoning Planning\nList the scripts, then remove the unused ones.",
			`1 1 tool_call list_directory-1762161310000-0 list_directory { "path": "/home/dev/oldproj/scripts" }`,
			"2 2 tool_result list_directory-1762161310000-0 list_directory failure=false result=true",
			`3 3 tool_call run_shell_command-1762161312000-1 run_shell_command { "command": "rm scripts/old-build.sh" }`,
			"4 4 tool_result run_shell_command-1762161312000-1 run_shell_command failure=true result=true",
			`5 5 tool_call write_file-1762161313000-2 write_file { "file_path": "/etc/hosts", "content": "" }`,
			"6 6 tool_result write_file-1762161313000-2 write_file failure=true result=false",
		}},
		{oldID, "old-w1", session.RoleSystem, "Checkpointing is disabled", nil},
	}
	msgs := map[string]session.Message{}
	for _, m := range c.Messages() {
		msgs[m.SessionID+"/"+m.ID] = m
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			m, ok := msgs[tc.session+"/"+tc.id]
			if !ok {
				t.Fatalf("message %s/%s not emitted", tc.session, tc.id)
			}
			if m.Role != tc.role || m.Content != tc.content {
				t.Errorf("got role %s content %q, want %s %q", m.Role, m.Content, tc.role, tc.content)
			}
			var got []string
			for _, p := range c.PartsOf(tc.session, tc.id) {
				got = append(got, describe(p))
			}
			if diff := cmp.Diff(tc.parts, got); diff != "" {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReplacedAndMetadataRecords(t *testing.T) {
	c, _ := readHome(t, testHome, nil)
	const g1 = "8a1d3f60-2c4b-4e7a-b1d9-5e6f7a8b9c02"
	type kept struct {
		ID, Line, Replaces, RewindTo string
	}
	var got []kept
	for _, m := range c.Messages() {
		if m.SessionID != mainID || m.Role != session.RoleSystem || m.Content != "" {
			continue
		}
		src := sourceOf(t, m.Options)
		k := kept{Line: string(src["line"]), Replaces: string(src["replaces"]), RewindTo: string(src["rewind_to"])}
		if strings.HasPrefix(m.ID, "rec-") {
			k.ID = "rec"
		}
		got = append(got, k)
	}
	want := []kept{
		{"rec", "3", "", ""},             // $set lastUpdated
		{"rec", "5", `"` + g1 + `"`, ""}, // replacement adding only a token count
		{"rec", "7", "", ""},             // $set lastUpdated
		{"rec", "12", "", `"0f9e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e04"`}, // $rewindTo
		{"rec", "15", "", ""}, // $set summary
		{"rec", "16", "", ""}, // $set messages checkpoint
		{"rec", "17", "", ""}, // unknown record
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("part-less system records (-want +got):\n%s", diff)
	}

	// The replacement that adds a call keeps its record on the first new part.
	parts := c.PartsOf(mainID, g1)
	src := sourceOf(t, parts[3].Options) // slot 3: the added call
	if string(src["line"]) != "6" || string(src["replaces"]) != `"`+g1+`"` || src["record"] == nil || string(src["status"]) != "" {
		t.Errorf("first new part of the replacement: got options.source %v, want line 6, replaces, record", src)
	}
	if src := sourceOf(t, parts[4].Options); src["record"] != nil || string(src["status"]) != `"error"` {
		t.Errorf("second new part: got options.source %v, want only the status", src)
	}
	// The checkpoint message points at its line and keeps no record of its own.
	for _, m := range c.Messages() {
		if m.ID == "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b08" {
			if got := string(m.Options["source"]); got != `{"checkpoint":16}` {
				t.Errorf("checkpoint message: got options.source %s, want {\"checkpoint\":16}", got)
			}
		}
	}
}

// TestLossless checks that every record of every source is kept verbatim exactly once.
func TestLossless(t *testing.T) {
	c, _ := readHome(t, testHome, nil)
	got := map[string]int{}
	for _, r := range records(t, c) {
		got[r]++
	}
	want := map[string]int{}
	err := filepath.WalkDir(filepath.Join(testHome, ".gemini", "tmp"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(path, "chats") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".jsonl") {
			for _, line := range bytes.Split(data, []byte("\n")) {
				if json.Valid(line) {
					want[string(line)]++
				}
			}
			return nil
		}
		fields, _, err := topLevel(data)
		if err != nil {
			return err
		}
		var meta []kv
		for _, f := range fields {
			if f.key != "messages" {
				meta = append(meta, kv{f.key, f.val})
				continue
			}
			for _, el := range elements(f.val, f.at) {
				want[string(el.raw)]++
			}
		}
		want[string(object(meta...))]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kept records (-want +got):\n%s", diff)
	}
}

func TestSearchText(t *testing.T) {
	c, _ := readHome(t, testHome, nil)
	tests := []struct{ id, want string }{
		{"5c0e7a52-1f0b-4a8e-9d43-2b1f6f0a7c01", "Why does the login test fail? Screenshot attached.\nimage/png"},
		{"8a1d3f60-2c4b-4e7a-b1d9-5e6f7a8b9c02", ""}, // reasoning and tools only
		{"e4b2c9d1-7a3f-4d8e-a5b6-c7d8e9f0a103", "The login helper compares the password hash with `==` against a Buffer, so it is always false."},
		{"1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c05", ""},       // info
		{"9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b08", ""},       // injected summary
		{"n-gemini-1", "Three meetings and one deadline."}, // text part with a thought signature
	}
	msgs := map[string]session.Message{}
	for _, m := range c.Messages() {
		msgs[m.ID] = m
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			m := msgs[tc.id]
			if got := session.SearchText(&m, c.PartsOf(m.SessionID, m.ID)); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestGolden pins the whole event stream of the fixture home (raw records aside); go test
// -update rewrites it.
func TestGolden(t *testing.T) {
	c, _ := readHome(t, testHome, nil)
	adaptertest.CheckGolden(t, filepath.Join("testdata", "events.golden"), c.Events, *update)
}

func TestLayoutOf(t *testing.T) {
	tests := []struct {
		path string
		want layout
	}{
		{"/h/.gemini/tmp/web/chats/session-1.jsonl", layout{root: "/h/.gemini", projectID: "web", project: "/h/.gemini/tmp/web"}},
		{"/h/.gemini/tmp/web/chats/p-1/s-2.jsonl", layout{root: "/h/.gemini", projectID: "web", project: "/h/.gemini/tmp/web", parent: "p-1"}},
		{"/elsewhere/chats/session-1.json", layout{projectID: "elsewhere", project: "/elsewhere"}},
		{"/fixtures/small.json", layout{}},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			if diff := cmp.Diff(tc.want, layoutOf(tc.path), cmp.AllowUnexported(layout{})); diff != "" {
				t.Errorf("layoutOf(%s) (-want +got):\n%s", tc.path, diff)
			}
		})
	}
}

func TestMalformed(t *testing.T) {
	const meta = `{"sessionId":"s","projectHash":"abc","startTime":"2026-01-01T00:00:00Z"}`
	tests := []struct {
		name, file, data string
		want             []int // lines reported malformed
		messages         int
	}{
		{"legacy_truncated", "session-a.json", "{\n  \"sessionId\": \"s\",\n  \"messages\": [\n    {\"id\": \"u\"", []int{4}, 0},
		{"legacy_not_an_object", "session-a.json", `[{"id":"u"}]`, []int{1}, 0},
		{"legacy_trailing_data", "session-a.json", `{"sessionId":"s"} x`, []int{1}, 0},
		{"legacy_bad_element", "session-a.json", "{\"sessionId\":\"s\",\"messages\":[\n7,\n{\"id\":\"u\",\"type\":\"user\",\"content\":\"hi\"}]}", []int{2}, 1},
		{"legacy_over_cap", "session-a.json", `{"sessionId":"s","messages":[{"id":"u","type":"user","content":"` + strings.Repeat("x", int(adaptertest.FuzzLimits.LineBytes)) + `"}]}`, []int{0}, 0},
		{"jsonl_bad_lines", "session-a.jsonl", meta + "\n[1,2]\nnull\n{oops\n" + `{"id":"u","type":"user","content":"hi"}` + "\n", []int{2, 3, 4}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "chats", tc.file)
			c := readFile(t, path, []byte(tc.data), adapters.Cursor{})
			var lines []int
			for _, p := range c.Bad {
				if p.At.Path != path {
					t.Errorf("reported at %s, want %s", p.At.Path, path)
				}
				lines = append(lines, p.At.Line)
			}
			if diff := cmp.Diff(tc.want, lines); diff != "" {
				t.Errorf("malformed lines (-want +got):\n%s", diff)
			}
			if got := len(c.Messages()); got != tc.messages {
				t.Errorf("got %d messages, want %d", got, tc.messages)
			}
		})
	}
}
