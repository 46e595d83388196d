package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/pondhq/pond/daemon/daemontest"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/resume/terminal"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
)

// firstHit is the fixture archive's first session for "test".
func firstHit(t *testing.T, srv *daemontest.Served) view.SessionHits {
	t.Helper()
	res, err := srv.Client.Search(context.Background(), &apitype.SearchRequest{SearchRequest: view.SearchRequest{Query: "test"}})
	if err != nil || len(res.Sessions) == 0 {
		t.Fatalf("search: %v, %v", res, err)
	}
	return res.Sessions[0]
}

func newTranscript(t *testing.T, api API, id string) (*Transcript, fyne.Window) {
	a := test.NewTempApp(t)
	w := a.NewWindow("t")
	w.Resize(fyne.NewSize(700, 600))
	tr := BuildTranscript(api, w, id, nil)
	tr.Done = make(chan struct{}, 1)
	tr.AutoLoad = false
	return tr, w
}

// TestTranscript: the fixture session in a virtualised list; a tool call unfolds to its input
// and its result; a message is copied.
func TestTranscript(t *testing.T) {
	time.Local = time.UTC
	srv := archive(t)
	h := firstHit(t, srv)
	tr, w := newTranscript(t, srv.Client, h.SessionID)
	var copied string
	tr.Copy = func(s string) { copied = s }
	tr.Load()
	wait(t, tr.Done)
	test.AssertRendersToMarkup(t, "transcript.xml", w.Canvas())
	if tr.Shown == 0 || tr.List.Length() != tr.Shown {
		t.Fatalf("loaded %d messages, the list has %d rows", tr.Shown, tr.List.Length())
	}
	if !strings.Contains(tr.Header.Text, "claude-code · /srv/demo") {
		t.Errorf("header: %q", tr.Header.Text)
	}
	// a tool call is folded; unfolding fetches its input and the result that answered it
	var msg string
	pi := -1
	for _, m := range tr.Messages() {
		for i, ps := range m.PartsSummary {
			if ps.Kind == string(session.PartToolCall) && pi < 0 {
				msg, pi = m.ID, i
			}
		}
	}
	if pi < 0 {
		t.Fatal("no tool call in the fixture session")
	}
	if open, _ := tr.Unfolded(msg, pi); open {
		t.Error("tool call open before a click")
	}
	onUI(func() { tr.Toggle(msg, pi) })
	wait(t, tr.Done)
	open, body := tr.Unfolded(msg, pi)
	if !open || !strings.Contains(body, "── result") {
		t.Errorf("unfolded tool call: open %v, body %q", open, body)
	}
	var withText view.MessageView
	for _, m := range tr.Messages() {
		if m.Text != "" && withText.ID == "" {
			withText = m
		}
	}
	onUI(func() { tr.CopyMessage(withText.ID) })
	if copied == "" || copied != withText.Text {
		t.Errorf("copied %q, want %q", copied, withText.Text)
	}
}

// bigSession ingests one session of n messages (user, then assistant with a tool call and its
// result) and returns its id and its messages' ids in order.
func bigSession(t testing.TB, c interface {
	Ingest(context.Context, *apitype.IngestRequest) (*apitype.IngestResponse, error)
}, n int) (string, []string) {
	return ingestSession(t, c, fmt.Sprintf("big-%d", n), "/srv/big", n)
}

// ingestSession ingests session id of n messages with project (its working directory).
func ingestSession(t testing.TB, c interface {
	Ingest(context.Context, *apitype.IngestRequest) (*apitype.IngestResponse, error)
}, id, project string, n int) (string, []string) {
	t.Helper()
	start := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	var evs []session.Event
	evs = append(evs, session.Event{Session: &session.Session{ID: id, SourceAgent: "claude-code", Project: project, CreatedAt: start}})
	var ids []string
	for i := 0; i < n; i++ {
		mid := fmt.Sprintf("m%06d", i)
		ids = append(ids, mid)
		role := session.RoleUser
		if i%2 == 1 {
			role = session.RoleAssistant
		}
		text := fmt.Sprintf("message %d of the long session about widgets", i)
		if i == n-3 {
			text += " with the needle zanzibar"
		}
		evs = append(evs,
			session.Event{Message: &session.Message{SessionID: id, ID: mid, Role: role, Timestamp: start.Add(time.Duration(i) * time.Second)}},
			session.Event{Part: &session.Part{SessionID: id, MessageID: mid, ID: "p0", Type: session.PartText, Text: text, Provenance: session.Conversational}})
	}
	var raw []json.RawMessage
	for _, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		raw = append(raw, b)
	}
	head, raw := raw[0], raw[1:]
	for len(raw) > 0 {
		// each batch holds the session, then messages with their parts (two events each)
		k := min(len(raw), apitype.MaxIngestEvents-2)
		batch := append([]json.RawMessage{head}, raw[:k]...)
		res, err := c.Ingest(context.Background(), &apitype.IngestRequest{Events: batch})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Results {
			if r.Status == "error" {
				t.Fatalf("ingest: %+v", r)
			}
		}
		raw = raw[k:]
	}
	return id, ids
}

// TestTranscriptPages: a long session loads a page at a time from either end, and the list
// reaches the next page by itself when it shows the row that stands for it.
func TestTranscriptPages(t *testing.T) {
	srv := daemontest.Start(t, "")
	id, ids := bigSession(t, srv.Client, 3*PageSize+7)
	tr, _ := newTranscript(t, srv.Client, id)
	onUI(tr.LoadEnd)
	wait(t, tr.Done)
	before, after := tr.Remaining()
	if tr.Shown != PageSize || before != len(ids)-PageSize || after != 0 {
		t.Fatalf("the end: %d shown, %d before, %d after", tr.Shown, before, after)
	}
	if got := tr.Messages()[tr.Shown-1].ID; got != ids[len(ids)-1] {
		t.Errorf("last message %s, want %s", got, ids[len(ids)-1])
	}
	// a row for every message of the session, loaded or not
	if tr.List.Length() != len(ids) {
		t.Errorf("rows %d, want one per message (%d)", tr.List.Length(), len(ids))
	}
	onUI(tr.LoadBefore)
	wait(t, tr.Done)
	if tr.Shown != 2*PageSize || tr.Messages()[0].ID != ids[len(ids)-2*PageSize] {
		t.Errorf("after one page earlier: %d shown from %s", tr.Shown, tr.Messages()[0].ID)
	}
	// from the start, pages after
	onUI(tr.Load)
	wait(t, tr.Done)
	onUI(tr.LoadAfter)
	wait(t, tr.Done)
	before, after = tr.Remaining()
	if tr.Shown != 2*PageSize || before != 0 || after != len(ids)-2*PageSize || tr.Messages()[2*PageSize-1].ID != ids[2*PageSize-1] {
		t.Errorf("from the start and one page after: %d shown, %d before, %d after", tr.Shown, before, after)
	}
	// scrolling to the bottom shows rows not loaded yet, which load the last page (not every
	// page on the way)
	onUI(func() { tr.AutoLoad = true; tr.List.ScrollToBottom() })
	waitFor(t, func() bool { return tr.indexOf(ids[len(ids)-1]) >= 0 })
	if tr.Shown > 2*PageSize {
		t.Errorf("scrolled to the bottom: %d loaded, want the last page without the ones between", tr.Shown)
	}
}

// TestTranscriptFind: `/` opens find; a word far past the loaded page is found through the
// daemon, and its page is loaded at the hit.
func TestTranscriptFind(t *testing.T) {
	srv := daemontest.Start(t, "")
	id, ids := bigSession(t, srv.Client, 3*PageSize)
	tr, w := newTranscript(t, srv.Client, id)
	onUI(tr.Load)
	wait(t, tr.Done)
	test.TypeOnCanvas(w.Canvas(), "/")
	if tr.findBar.Hidden || w.Canvas().Focused() != tr.Find {
		t.Fatal("`/` did not open find")
	}
	test.Type(tr.Find, "zanzibar")
	onUI(func() { tr.Find.OnSubmitted(tr.Find.Text) })
	want := ids[len(ids)-3]
	// the search's answer, then the page at the hit
	waitFor(t, func() bool { return tr.Highlighted == want && tr.indexOf(want) >= 0 })
	if len(tr.Hits()) != 1 || tr.Highlighted != want || tr.indexOf(want) < 0 {
		t.Errorf("find: hits %v, highlighted %q (want %s), loaded from %s", tr.Hits(), tr.Highlighted, want, tr.Messages()[0].ID)
	}
	if tr.FindInfo.Text != "1 of 1" {
		t.Errorf("find info %q", tr.FindInfo.Text)
	}
}

// TestOpenAtHit: a transcript opened from a search hit starts at that message.
func TestOpenAtHit(t *testing.T) {
	srv := daemontest.Start(t, "")
	id, ids := bigSession(t, srv.Client, 2*PageSize)
	tr, _ := newTranscript(t, srv.Client, id)
	onUI(func() { tr.OpenAt(ids[PageSize+5]) })
	wait(t, tr.Done)
	if tr.Messages()[0].ID != ids[PageSize+5] || tr.Highlighted != ids[PageSize+5] {
		t.Errorf("opened at %s (highlighted %s), want %s", tr.Messages()[0].ID, tr.Highlighted, ids[PageSize+5])
	}
	if before, _ := tr.Remaining(); before != PageSize+5 {
		t.Errorf("%d before the hit, want %d", before, PageSize+5)
	}
}

// TestOpenAtHitInACopy: a restored copy of a session keeps its message ids, so a hit in the
// copy names an id the original holds too. The window opened at the copy's hit shows the copy,
// and scrolling up from the hit loads the copy's earlier messages (it once asked the daemon for
// the page before a message of the other session and stayed "Loading…").
func TestOpenAtHitInACopy(t *testing.T) {
	srv := daemontest.Start(t, "")
	// "a-…" sorts before "z-…": a lookup by message id alone finds the original first
	ingestSession(t, srv.Client, "a-original", "/srv/one", 2*PageSize)
	copyID, ids := ingestSession(t, srv.Client, "z-copy", "/srv/two", 2*PageSize)
	tr, _ := newTranscript(t, srv.Client, copyID)
	hit := ids[PageSize+5]
	onUI(func() { tr.OpenAt(hit) })
	wait(t, tr.Done)
	if tr.Status.Text == "" || strings.HasPrefix(tr.Status.Text, "Could not") {
		t.Fatalf("opened at the hit: %s", tr.Status.Text)
	}
	for _, m := range tr.Messages() {
		if m.SessionID != copyID {
			t.Fatalf("message %s of session %s shown in the copy's window", m.ID, m.SessionID)
		}
	}
	if !strings.Contains(tr.Header.Text, "/srv/two") {
		t.Errorf("header %q, want the copy's project", tr.Header.Text)
	}
	onUI(tr.LoadBefore)
	wait(t, tr.Done)
	if strings.HasPrefix(tr.Status.Text, "Could not") {
		t.Fatalf("scrolling up from the hit: %s", tr.Status.Text)
	}
	if before, _ := tr.Remaining(); before != 5 || tr.Messages()[0].ID != ids[5] || tr.Messages()[0].SessionID != copyID {
		t.Errorf("a page before the hit: %d still before, first %s of %s", before, tr.Messages()[0].ID, tr.Messages()[0].SessionID)
	}
}

// recorder is a terminal that records what it was asked to open.
type recorder struct {
	opts terminal.Options
	argv [][]string
	dir  string
}

func (r *recorder) open(o terminal.Options, argv [][]string, dir string, _ func(string) string) (string, error) {
	r.opts, r.argv, r.dir = o, argv, dir
	return "fake-term", nil
}

// launcherWith finds agents only in bin (no login shell), with the preferences p.
func launcherWith(bin string, p Prefs, rec *recorder) *Launcher {
	l := NewLauncher(p)
	l.Resolver.Getenv = func(k string) string { return map[string]string{"PATH": bin}[k] }
	l.Open = rec.open
	return l
}

func fakeProgram(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func resumeNow(t *testing.T, api API, id, to string) *view.ResumeOutcome {
	t.Helper()
	done := make(chan struct{})
	var o *view.ResumeOutcome
	var rerr error
	Resume(api, id, to, func(got *view.ResumeOutcome, err error) { o, rerr = got, err; close(done) })
	wait(t, done)
	if rerr != nil {
		t.Fatalf("resume into %s: %v", to, rerr)
	}
	return o
}

// TestResumeOutcomes: each outcome as the window shows it, against a real daemon: restored and
// opened in the terminal with the agent's program found; already restored → the existing copy
// opens; the agent not installed; the working directory gone; not in the archive.
func TestResumeOutcomes(t *testing.T) {
	srv := archive(t)
	h := firstHit(t, srv)
	a := test.NewTempApp(t)
	bin := t.TempDir()
	codex := fakeProgram(t, bin, "codex")
	rec := &recorder{}
	prefs := Prefs{P: a.Preferences()}
	prefs.SetTerminal(TerminalCustom, "myterm --in {dir} {cmd}")
	l := launcherWith(bin, prefs, rec)
	var copied string
	cp := func(s string) { copied = s }

	// restored: the agent's program is found, the terminal opens it in the session's folder
	work := t.TempDir()
	here, _ := ingestSession(t, srv.Client, "here-1", work, 4)
	o := resumeNow(t, srv.Client, here, "codex-cli")
	if o.Status != view.ResumeOK {
		t.Fatalf("codex-cli: %s (%s)", o.Status, o.Message)
	}
	v := NewOutcome(l, "fallback", o, nil, cp, nil)
	if v.Open.Disabled() {
		t.Fatalf("restored, but Open is disabled: %q", v.Text.Text)
	}
	test.Tap(v.Open)
	if len(rec.argv) == 0 || rec.argv[0][0] != codex || rec.dir != o.Cwd || rec.opts.Template != "myterm --in {dir} {cmd}" {
		t.Errorf("opened %q in %q with %+v; want %s first, in %s, with the settings' template", rec.argv, rec.dir, rec.opts, codex, o.Cwd)
	}
	if !slices.Contains(rec.opts.Env, "PATH="+bin) {
		t.Errorf("the terminal's environment lacks the agents' PATH: %q", rec.opts.Env)
	}
	test.Tap(v.Copy)
	if copied != o.Command {
		t.Errorf("copied %q, want %q", copied, o.Command)
	}

	// again: already restored, the existing copy opens
	o2 := resumeNow(t, srv.Client, here, "codex-cli")
	if o2.Status != view.ResumeTargetExists {
		t.Fatalf("second restore: %s (%s)", o2.Status, o2.Message)
	}
	v2 := NewOutcome(l, "fallback", o2, nil, cp, nil)
	if v2.Open.Text != "Open the existing copy" || v2.Open.Disabled() || !strings.Contains(v2.Text.Text, "Already restored") {
		t.Errorf("already restored: button %q (disabled %v), text %q", v2.Open.Text, v2.Open.Disabled(), v2.Text.Text)
	}
	test.Tap(v2.Open)
	if rec.argv[len(rec.argv)-1][len(rec.argv[len(rec.argv)-1])-1] != o2.ID {
		t.Errorf("the existing copy: opened %q, want session %s", rec.argv, o2.ID)
	}

	// an agent that is not installed: said, and only the copy is offered
	o3 := resumeNow(t, srv.Client, here, "gemini-cli")
	if o3.Status != view.ResumeOK {
		t.Fatalf("gemini-cli: %s (%s)", o3.Status, o3.Message)
	}
	v3 := NewOutcome(l, "fallback", o3, nil, cp, nil)
	if !v3.Open.Disabled() || !strings.Contains(v3.Text.Text, "gemini-cli is not installed here") {
		t.Errorf("not installed: open disabled %v, text %q", v3.Open.Disabled(), v3.Text.Text)
	}

	// the session's own agent resumes only in its folder, which is gone here
	if _, err := os.Stat("/srv/demo"); err == nil {
		t.Skip("/srv/demo exists on this machine")
	}
	o4 := resumeNow(t, srv.Client, h.SessionID, "claude-code")
	if o4.Status != view.ResumeCwdMissing {
		t.Fatalf("claude-code: %s (%s)", o4.Status, o4.Message)
	}
	v4 := NewOutcome(l, "fallback", o4, nil, cp, nil)
	if !v4.Open.Disabled() || v4.Create.Hidden || !strings.Contains(v4.Text.Text, "working directory is gone: /srv/demo") {
		t.Errorf("cwd missing: open disabled %v, create hidden %v, text %q", v4.Open.Disabled(), v4.Create.Hidden, v4.Text.Text)
	}
	w := a.NewWindow("resume")
	w.SetContent(v4.Box)
	w.Resize(fyne.NewSize(600, 260))
	v4.Box.Refresh()
	test.AssertRendersToMarkup(t, "resume_cwd_missing.xml", w.Canvas())

	// not stored
	o5 := resumeNow(t, srv.Client, "no-such-session", "claude-code")
	if v := NewOutcome(l, "fallback", o5, nil, cp, nil); !v.Open.Disabled() || v.Command.Text != "fallback" {
		t.Errorf("not stored: open disabled %v, command %q", v.Open.Disabled(), v.Command.Text)
	}
}

// TestCreateFolderAndRetry: "Create the folder and retry" makes the missing folder and restores
// again.
func TestCreateFolderAndRetry(t *testing.T) {
	test.NewTempApp(t)
	dir := filepath.Join(t.TempDir(), "gone", "project")
	o := &view.ResumeOutcome{Status: view.ResumeCwdMissing, To: "claude-code", Cwd: dir, Message: "gone"}
	retried := false
	v := NewOutcome(NewLauncher(Prefs{}), "fallback", o, nil, func(string) {}, func() { retried = true })
	test.Tap(v.Create)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || !retried {
		t.Errorf("folder %v, retried %v", err, retried)
	}
}

// TestResumeBar: "Resume in <agent>" and "Resume in…" with every restore target the daemon has.
func TestResumeBar(t *testing.T) {
	srv := daemontest.Start(t, "")
	test.NewTempApp(t)
	var to []string
	b := NewResumeBar(srv.Client, "claude-code/subagent", func(x string) { to = append(to, x) })
	waitFor(t, func() bool { return len(b.Other.Options) > 0 })
	if b.Native.Text != "Resume in claude-code" || !slices.Contains(b.Other.Options, "codex-cli") {
		t.Errorf("native %q, others %v", b.Native.Text, b.Other.Options)
	}
	test.Tap(b.Native)
	onUI(func() { b.Other.SetSelected("codex-cli") })
	if !slices.Equal(to, []string{"claude-code", "codex-cli"}) || b.Other.Selected != "" {
		t.Errorf("resumed into %v; select left at %q", to, b.Other.Selected)
	}
}

// TestSettingsWindow: the terminal (a custom command too) is kept in the preferences; an
// agent's capture folder reaches the daemon; the model and upkeep say what they are.
func TestSettingsWindow(t *testing.T) {
	srv := archive(t)
	a := test.NewTempApp(t)
	w := a.NewWindow("settings")
	w.Resize(fyne.NewSize(680, 520))
	prefs := Prefs{P: a.Preferences()}
	env := map[string]string{"DISPLAY": ":99"}
	s := NewSettings(srv.Client, w, prefs, srv.Dirs.Data.Path, func(k string) string { return env[k] })
	waitFor(t, func() bool {
		return s.Paths["claude-code"] != nil && strings.Contains(s.Model.Text, "Semantic search is off")
	})
	test.AssertRendersToMarkup(t, "settings.xml", w.Canvas())

	if !slices.Contains(s.Terminal.Options, "kitty") || !slices.Contains(s.Terminal.Options, TerminalCustom) {
		t.Errorf("terminal choices %v", s.Terminal.Options)
	}
	onUI(func() { s.Terminal.SetSelected("kitty") })
	if got := prefs.Terminal(); got.Name != "kitty" || !s.Template.Disabled() {
		t.Errorf("kitty chosen: prefs %+v, template disabled %v", got, s.Template.Disabled())
	}
	onUI(func() {
		s.Terminal.SetSelected(TerminalCustom)
		s.Template.SetText("wezterm start --cwd {dir} -- {cmd}")
	})
	if got := prefs.Terminal(); got.Template != "wezterm start --cwd {dir} -- {cmd}" || got.Name != "" {
		t.Errorf("custom: prefs %+v", got)
	}
	if !strings.Contains(s.TermInfo.Text, "wezterm start --cwd /path/of/session -- claude --resume ID") {
		t.Errorf("template preview %q", s.TermInfo.Text)
	}

	// a capture folder: refused when it is not one, sent to the daemon when it is
	onUI(func() { s.Paths["claude-code"].SetText("/no/such/folder"); test.Tap(s.Apply["claude-code"]) })
	if !strings.Contains(s.Status.Text, "not a folder") {
		t.Errorf("a missing folder: %q", s.Status.Text)
	}
	dir := filepath.Join(srv.Home, ".claude")
	onUI(func() { s.Paths["claude-code"].SetText(dir); test.Tap(s.Apply["claude-code"]) })
	waitFor(t, func() bool { return strings.Contains(s.Status.Text, "capturing from "+dir) })
	ad, err := srv.Client.Adapters(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range ad.Adapters {
		if x.Name == "claude-code" && (x.Path != dir || !x.Enabled) {
			t.Errorf("the daemon's claude-code: %+v", x)
		}
	}
	// an agent's program, kept for resume
	onUI(func() { s.Programs["codex-cli"].SetText("/opt/codex/bin/codex") })
	if prefs.AgentProgram("codex-cli") != "/opt/codex/bin/codex" {
		t.Errorf("program not kept: %q", prefs.AgentProgram("codex-cli"))
	}
	// no model installed: the switch is off and says how to get one
	if !s.ModelToggle.Disabled() {
		t.Error("the model switch is enabled with no model installed")
	}
	// upkeep: what is due
	onUI(func() { test.Tap(s.CheckUp) })
	waitFor(t, func() bool { return strings.HasPrefix(s.Upkeep.Text, "Due:") || s.Upkeep.Text == "Nothing is due." })
	if !strings.Contains(s.Archive.Text, srv.Dirs.Data.Path) {
		t.Errorf("archive line %q", s.Archive.Text)
	}
}

// forbidding answers every change with the daemon's forbidden error, as a daemon does for a
// peer it does not trust.
type forbidding struct{ API }

func (f forbidding) SetAdapters(context.Context, *apitype.AdapterRequest) (*apitype.AdaptersResponse, error) {
	return nil, &apitype.Error{Code: apitype.CodeForbidden, Message: "peer uid 1001 is not the daemon's user"}
}

// TestReadOnly: a forbidden answer puts the windows in read-only mode: the banner says why,
// every change is refused with the reason, reading goes on; Reset (the daemon restarted) ends it.
func TestReadOnly(t *testing.T) {
	srv := archive(t)
	a := test.NewTempApp(t)
	g := NewGuard(forbidding{srv.Client})
	w := a.NewWindow("adapters")
	banner := g.Banner()
	ad := NewAdapters(g, w)
	w.SetContent(withBanner(banner, w.Content()))
	waitFor(t, func() bool { return ad.Checks["claude-code"] != nil })
	if banner.Visible() {
		t.Fatal("banner shown before any refusal")
	}
	onUI(func() { ad.Checks["claude-code"].SetChecked(false) })
	waitFor(t, func() bool { return g.ReadOnly() != "" && banner.Visible() })
	if !strings.Contains(g.ReadOnly(), "peer uid 1001") {
		t.Errorf("reason %q", g.ReadOnly())
	}
	_, err := g.SetConsent(context.Background(), &apitype.Consent{Capture: "granted"})
	var ro *ReadOnlyError
	if !errors.As(err, &ro) {
		t.Errorf("a change while read-only: %v", err)
	}
	if _, err := g.Search(context.Background(), &apitype.SearchRequest{SearchRequest: view.SearchRequest{Query: "test"}}); err != nil {
		t.Errorf("search while read-only: %v", err)
	}
	g.Reset()
	waitFor(t, func() bool { return !banner.Visible() })
}

func withBanner(top, body fyne.CanvasObject) fyne.CanvasObject {
	return &fyne.Container{Layout: borderTop{}, Objects: []fyne.CanvasObject{top, body}}
}

// borderTop lays top above body.
type borderTop struct{}

func (borderTop) MinSize(o []fyne.CanvasObject) fyne.Size {
	a, b := o[0].MinSize(), o[1].MinSize()
	return fyne.NewSize(max(a.Width, b.Width), a.Height+b.Height)
}

func (borderTop) Layout(o []fyne.CanvasObject, s fyne.Size) {
	h := float32(0)
	if o[0].Visible() {
		h = o[0].MinSize().Height
	}
	o[0].Resize(fyne.NewSize(s.Width, h))
	o[1].Move(fyne.NewPos(0, h))
	o[1].Resize(fyne.NewSize(s.Width, s.Height-h))
}

// TestGoldenImages keeps images of the main windows (Fyne's test theme and painter).
func TestGoldenImages(t *testing.T) {
	time.Local = time.UTC
	srv := archive(t)
	h := firstHit(t, srv)

	s, w := newSearch(t, srv.Client)
	w.Canvas().Focus(s.Entry)
	test.Type(s.Entry, "test")
	waitShown(t, s)
	test.AssertImageMatches(t, "search.png", w.Canvas().Capture())

	tr, tw := newTranscript(t, srv.Client, h.SessionID)
	onUI(tr.Load)
	wait(t, tr.Done)
	test.AssertImageMatches(t, "transcript.png", tw.Canvas().Capture())

	a := fyne.CurrentApp()
	sw := a.NewWindow("settings")
	sw.Resize(fyne.NewSize(680, 520))
	st := NewSettings(srv.Client, sw, Prefs{P: a.Preferences()}, "/home/me/.local/share/pond", func(string) string { return "" })
	waitFor(t, func() bool { return strings.Contains(st.Model.Text, "Semantic") })
	test.AssertImageMatches(t, "settings.png", sw.Canvas().Capture())
}

// TestReconnect: the daemon stops and starts again on the same socket; the window's refresh
// (what the tray does when the daemon is back) reaches the new daemon, and read-only ends.
func TestReconnect(t *testing.T) {
	srv := archive(t)
	g := NewGuard(srv.Client)
	s, w := newSearch(t, g)
	w.Canvas().Focus(s.Entry)
	test.Type(s.Entry, "test")
	waitShown(t, s)
	if len(s.Results()) == 0 {
		t.Fatal("no results before the restart")
	}
	srv.Stop()
	onUI(s.Refresh)
	waitShown(t, s)
	if len(s.Results()) != 0 || !strings.Contains(s.Empty.Text, "Is the daemon running?") {
		t.Errorf("daemon stopped: %d results, %q", len(s.Results()), s.Empty.Text)
	}
	g.set(ReadOnlyText("peer uid 1001 is not the daemon's user"))
	srv.Restart(t)
	g.Reset()
	onUI(s.Refresh)
	waitShown(t, s)
	if len(s.Results()) == 0 || g.ReadOnly() != "" {
		t.Errorf("after the restart: %d results, read-only %q", len(s.Results()), g.ReadOnly())
	}
}

// TestOwnHit: a group's hit in a sub-agent's session is not where its transcript opens.
func TestOwnHit(t *testing.T) {
	h := view.SessionHits{SessionID: "p", Matches: []view.Hit{{SessionID: "child", MessageID: "c-u1"}, {SessionID: "p", MessageID: "m2"}}}
	if got := OwnHit(h); got != "m2" {
		t.Errorf("OwnHit = %q, want the parent's own m2", got)
	}
	h.Matches = h.Matches[:1]
	if got := OwnHit(h); got != "" {
		t.Errorf("OwnHit = %q with only a sub-agent's hit, want none (open at the start)", got)
	}
}
