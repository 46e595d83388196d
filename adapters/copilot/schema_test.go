package copilot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pondhq/pond/adapters/corpus"
	"github.com/pondhq/pond/adapters/restore"
)

// fixtureInvalid are the fixture's lines that break the schema on purpose (drift and a torn
// line the adapter must report and survive), by file.
var fixtureInvalid = map[string]map[int]string{
	demoKey: {4: "an unknown data key", 10: "a torn line", 27: "an unknown event type", 28: "an unknown envelope key"},
}

// TestSchema validates events against the CLI's own JSON Schema (session-events.schema.json, in
// the package Copilot unpacks on its first run), with a pure-Go validator
// (santhosh-tekuri/jsonschema): every line of the fixture but the ones broken on purpose (the
// genuine session, written by Copilot itself, must pass whole), every event a foreign restore of
// each fixture session writes, and a benchmark-corpus session. The schema's event types must
// be the ones the adapter knows. The schema is Copilot's, not Pond's to ship: the test runs
// under make verify-agents (POND_VERIFY_AGENTS, the install holding the pinned CLI), or with
// POND_COPILOT_SCHEMA naming the file.
func TestSchema(t *testing.T) {
	path := os.Getenv("POND_COPILOT_SCHEMA")
	if path == "" {
		dir := os.Getenv("POND_VERIFY_AGENTS")
		if dir == "" {
			t.Skip("POND_VERIFY_AGENTS is not set: make verify-agents installs Copilot CLI, whose schema this checks against")
		}
		path = unpackedSchema(t, dir)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.UseRegexpEngine(ecmaRegexp)
	if err := c.AddResource("session-events.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("session-events.schema.json")
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	t.Logf("schema: %s", path)

	// The event types the schema lists are the ones the adapter knows.
	var top struct {
		Definitions map[string]struct {
			AnyOf []struct {
				Ref string `json:"$ref"`
			}
			Properties map[string]struct{ Const json.RawMessage }
		}
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, r := range top.Definitions["SessionEvent"].AnyOf {
		def := top.Definitions[strings.TrimPrefix(r.Ref, "#/definitions/")]
		var typ string
		_ = json.Unmarshal(def.Properties["type"].Const, &typ)
		types = append(types, typ)
	}
	var missing []string
	for _, typ := range types {
		if !eventTypes[typ] {
			missing = append(missing, typ)
		}
	}
	if len(missing) > 0 || len(types) != len(eventTypes) {
		sort.Strings(missing)
		t.Errorf("the schema lists %d event types, the adapter knows %d; unknown to the adapter: %v", len(types), len(eventTypes), missing)
	}

	validate := func(name string, data []byte, invalid map[int]string) {
		t.Helper()
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for no := 1; sc.Scan(); no++ {
			line := sc.Bytes()
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
			if err == nil {
				err = sch.Validate(v)
			}
			switch why, broken := invalid[no]; {
			case broken && err == nil:
				t.Errorf("%s:%d (%s) passes the schema", name, no, why)
			case !broken && err != nil:
				t.Errorf("%s:%d: %v", name, no, clipErr(err))
			}
		}
	}

	srcs, err := Adapter{}.Scan(t.Context(), testEnv, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range srcs {
		if src.Skip != "" {
			continue
		}
		data, err := os.ReadFile(src.Path)
		if err != nil {
			t.Fatal(err)
		}
		validate(src.Key, data, fixtureInvalid[src.Key])
	}

	for id, tr := range readTestdata(t).Transcripts() {
		plan, err := Adapter{}.Encode(&restore.Job{Batch: []*restore.Transcript{tr}, Root: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range plan.Files {
			validate("foreign restore of "+id, f.Data, nil)
		}
	}

	root := t.TempDir()
	conv := &corpus.Conv{ID: "0195a0c4-1111-7222-8333-444455556666", Cwd: "/srv/bench", Start: time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC),
		RandHex: func(n int) string { return strings.Repeat("a", n) },
		Turns: []corpus.Turn{{Kind: corpus.UserText, Text: "go"}, {Kind: corpus.ToolRun, Tool: "bash", Text: "ls", Output: "a"},
			{Kind: corpus.ToolRun, Tool: "read", Text: "a", Output: "no", Failed: true}, {Kind: corpus.AssistantText, Text: "done"}}}
	if _, err := (Adapter{}).Corpus(corpus.Env{}).Write(root, conv); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "session-state", conv.ID, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	validate("benchmark corpus", data, nil)
}

// unpackedSchema is the schema of the CLI the install under dir pins: Copilot unpacks its
// package into $XDG_CACHE_HOME/copilot/pkg/<platform>/<version>/ on its first run (the verify
// runs share copilot-cache beside the install, so this happens once).
func unpackedSchema(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "node_modules", "@github", "copilot-linux-x64", "copilot")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("Copilot CLI is not installed (%v): run make verify-agents, which installs it", err)
	}
	cache := filepath.Join(dir, "copilot-cache")
	cmd := exec.Command(bin, "--version")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + cache, "COPILOT_AUTO_UPDATE=false"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("copilot --version: %v\n%s", err, out)
	}
	version := strings.TrimSuffix(strings.Fields(string(out) + " ? ? ? ?")[3], ".")
	found, _ := filepath.Glob(filepath.Join(cache, "copilot", "pkg", "*", version, "schemas", "session-events.schema.json"))
	if len(found) != 1 {
		t.Fatalf("copilot %s: %d unpacked schemas under %s (%v)", version, len(found), cache, found)
	}
	return found[0]
}

// ecmaRegexp compiles the schema's patterns, written for JavaScript, with Go's regexp: the one
// construct they use that Go's syntax lacks, \uXXXX, becomes \x{XXXX}.
func ecmaRegexp(s string) (jsonschema.Regexp, error) {
	return regexp.Compile(jsEscape.ReplaceAllString(s, `\x{$1}`))
}

var jsEscape = regexp.MustCompile(`\\u([0-9A-Fa-f]{4})`)

// clipErr shortens a validation error (it quotes the event).
func clipErr(err error) string {
	s := fmt.Sprint(err)
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s
}
