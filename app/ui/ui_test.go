package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/pondhq/pond/daemon/daemontest"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// archive is a real daemon over a real socket holding the Claude Code fixtures, synced.
func archive(t *testing.T) *daemontest.Served {
	t.Helper()
	s := daemontest.Start(t, "../../adapters/claudecode/testdata/projects")
	ctx := context.Background()
	if _, err := s.Client.SetConsent(ctx, &apitype.Consent{Capture: "granted"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client.Sync(ctx, &apitype.SyncRequest{}); err != nil {
		t.Fatal(err)
	}
	return s
}

func wait(t *testing.T, ch chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(2 * time.Minute): // a bound on a hang, not a measure of speed
		t.Fatal("no answer from the daemon within 2 minutes")
	}
}

// waitShown waits until the window shows the answer to its current query and filters. Earlier
// answers (the empty query the window starts with, a prefix typed on a slow machine) may be
// applied first; which ones are depends on the machine's speed, never on the window's logic.
func waitShown(t *testing.T, s *Search) {
	t.Helper()
	for {
		wait(t, s.Done)
		var q string
		var f view.SearchFilters
		onUI(func() { q, f = strings.TrimSpace(s.Entry.Text), s.Filters() })
		if gq, gf := s.Shown(); gq == q && gf == f {
			return
		}
	}
}

func newSearch(t *testing.T, api API) (*Search, fyne.Window) {
	a := test.NewTempApp(t)
	w := a.NewWindow("search")
	w.Resize(fyne.NewSize(800, 500))
	s := NewSearch(api, w)
	s.Debounce = 5 * time.Millisecond
	s.HideTiming = true
	s.Done = make(chan struct{}, 1)
	return s, w
}

func TestSearchWindow(t *testing.T) {
	time.Local = time.UTC
	srv := archive(t)
	s, w := newSearch(t, srv.Client)
	var copied string
	s.Copy = func(c string) { copied = c }
	var opened, resumed view.SessionHits
	s.OnOpen = func(h view.SessionHits) { opened = h }
	s.OnResume = func(h view.SessionHits) { resumed = h }

	w.Canvas().Focus(s.Entry)
	test.Type(s.Entry, "test")
	waitShown(t, s)
	if len(s.Results()) == 0 {
		t.Fatalf("typing %q found nothing; status %q", "test", s.Status.Text)
	}
	got := Title(s.Results()[0])
	if !strings.HasPrefix(got, "claude-code · /srv/demo · ") {
		t.Errorf("title: got %q", got)
	}
	test.AssertRendersToMarkup(t, "search_results.xml", w.Canvas())

	// keyboard: ↓ selects, Enter opens, Ctrl+Enter resumes, Ctrl+C copies the command
	s.Entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyDown})
	if h, _ := s.Selected(); h.SessionID == "" {
		t.Fatal("↓ selected nothing")
	}
	s.Entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if opened.SessionID != s.Results()[0].SessionID {
		t.Errorf("Enter opened %q, want %q", opened.SessionID, s.Results()[0].SessionID)
	}
	s.resume()
	if resumed.SessionID == "" {
		t.Error("Ctrl+Enter resumed nothing")
	}
	s.Entry.TypedShortcut(&fyne.ShortcutCopy{})
	if want := "pond resume " + s.Results()[0].SessionID + " --to claude-code"; copied != want {
		t.Errorf("Ctrl+C copied %q, want %q", copied, want)
	}

	// nothing matched: say what to try
	s.Entry.SetText("zyxwvutsrq")
	waitShown(t, s)
	if len(s.Results()) != 0 || !s.Empty.Visible() || !strings.Contains(s.Empty.Text, "Try") {
		t.Errorf("empty: results %d, text %q", len(s.Results()), s.Empty.Text)
	}

	// semantic without a model: refused with the reason, back to full text
	s.SetSemantic("Semantic search needs the model")
	s.Mode.SetSelected("Semantic")
	if s.Mode.Selected != "Full text" || s.Status.Text != "Semantic search needs the model" {
		t.Errorf("semantic with no model: mode %q, status %q", s.Mode.Selected, s.Status.Text)
	}
}

// TestSearchFilters: each filter reaches the daemon, and an empty answer under filters says so.
func TestSearchFilters(t *testing.T) {
	srv := archive(t)
	s, w := newSearch(t, srv.Client)
	w.Canvas().Focus(s.Entry)
	s.Now = func() time.Time { return time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC) }
	waitFor(t, func() bool { return slices.Contains(s.Agent.Options, "codex-cli") })
	test.Type(s.Entry, "test")
	waitShown(t, s)
	all := len(s.Results())
	if all == 0 {
		t.Fatal("no results without filters")
	}
	steps := []struct {
		name  string
		set   func()
		want  view.SearchFilters
		found bool
	}{
		{"other agent", func() { s.Agent.SetSelected("codex-cli") }, view.SearchFilters{SourceAgent: "codex-cli"}, false},
		{"own agent", func() { s.Agent.SetSelected("claude-code") }, view.SearchFilters{SourceAgent: "claude-code"}, true},
		{"role", func() { s.Role.SetSelected("user") }, view.SearchFilters{SourceAgent: "claude-code", Role: "user"}, true},
		{"project", func() { s.Project.SetText("no-such-project") }, view.SearchFilters{SourceAgent: "claude-code", Role: "user", Project: "no-such-project"}, false},
		{"cleared", func() { s.Project.SetText(""); s.Agent.SetSelected("Any agent"); s.Role.SetSelected("Any role") }, view.SearchFilters{}, true},
		{"past week", func() { s.Since.SetSelected("Past week") }, view.SearchFilters{FromDate: "2026-11-25"}, false},
	}
	for _, st := range steps {
		onUI(st.set)
		waitShown(t, s)
		if got := s.Filters(); got != st.want {
			t.Errorf("%s: filters %+v, want %+v", st.name, got, st.want)
		}
		if found := len(s.Results()) > 0; found != st.found {
			t.Errorf("%s: %d results, want found=%v", st.name, len(s.Results()), st.found)
		}
		if !st.found && !strings.Contains(s.Empty.Text, "filters narrow it") {
			t.Errorf("%s: the empty text does not point at the filters: %q", st.name, s.Empty.Text)
		}
	}
}

// TestSearchDropsStaleAnswers: an answer that arrives after the answer to a newer query is
// dropped. The test decides the order of the answers, so the machine's speed does not.
func TestSearchDropsStaleAnswers(t *testing.T) {
	srv := archive(t)
	g := &heldSearch{API: srv.Client, query: "test", started: make(chan struct{}, 1), release: make(chan struct{})}
	s, _ := newSearch(t, g)
	s.Dropped = make(chan string, 8)
	s.Entry.SetText("test") // its answer is held back…
	wait(t, g.started)
	s.Entry.SetText("zyxw") // …while the newer query's answer is applied
	waitShown(t, s)
	close(g.release) // the older answer, with results, arrives last
	for q := ""; q != "test"; {
		select {
		case q = <-s.Dropped:
		case <-time.After(2 * time.Minute): // a bound on a hang, not a measure of speed
			t.Fatal("the late answer was never dropped (applied instead?)")
		}
	}
	if q, _ := s.Shown(); q != "zyxw" || len(s.Results()) != 0 {
		t.Errorf("after the late answer: showing %q with %d results, want the newer query's none", q, len(s.Results()))
	}
}

// heldSearch answers query only once release is closed, after signalling started.
type heldSearch struct {
	API
	query   string
	started chan struct{}
	release chan struct{}
}

func (h *heldSearch) Search(ctx context.Context, req *apitype.SearchRequest) (*view.SearchResult, error) {
	if req.Query == h.query {
		h.started <- struct{}{}
		<-h.release
	}
	return h.API.Search(ctx, req)
}

func TestConsentWindow(t *testing.T) {
	srv := daemontest.Start(t, "../../adapters/claudecode/testdata/projects")
	a := test.NewTempApp(t)
	w := a.NewWindow("consent")
	c := NewConsent(srv.Client, w, srv.Dirs.Data.Path)
	waitFor(t, func() bool { return strings.Contains(c.Agents.Text, "claude-code") })
	for _, tt := range []struct {
		name  string
		btn   *widget.Button
		want  string
		label string
	}{{"grant", c.Grant, "granted", "Capture is on"}, {"decline", c.Decline, "declined", "Capture is off"}} {
		t.Run(tt.name, func(t *testing.T) {
			test.Tap(tt.btn)
			// The window says what was recorded only once the daemon answered.
			waitFor(t, func() bool { return strings.HasPrefix(c.Current.Text, tt.label) })
			got, err := srv.Client.Consent(context.Background())
			if err != nil || got.Capture != tt.want {
				t.Errorf("consent: got %+v, %v want %s", got, err, tt.want)
			}
		})
	}
}

func TestAdaptersWindow(t *testing.T) {
	srv := archive(t)
	a := test.NewTempApp(t)
	w := a.NewWindow("adapters")
	ad := NewAdapters(srv.Client, w)
	waitFor(t, func() bool { return ad.Checks["claude-code"] != nil })
	var on bool
	onUI(func() { on = ad.Checks["claude-code"].Checked })
	if !on {
		t.Fatal("claude-code not shown as enabled after a sync")
	}
	onUI(func() { ad.Checks["claude-code"].SetChecked(false) })
	waitFor(t, func() bool {
		r, err := srv.Client.Adapters(context.Background())
		if err != nil {
			return false
		}
		for _, x := range r.Adapters {
			if x.Name == "claude-code" {
				return !x.Enabled
			}
		}
		return false
	})
}

// onUI runs a test's step as the app would run it, on the UI goroutine and one at a time with
// the windows' own updates (uiMu; see do).
func onUI(f func()) {
	fyne.DoAndWait(func() {
		uiMu.Lock()
		defer uiMu.Unlock()
		f()
	})
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for i := 0; i < 2400; i++ { // up to 2 minutes: a bound on a hang, not on speed
		ok := false
		onUI(func() { ok = cond() })
		if ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("condition not met within 2 minutes")
}

func findButton(o fyne.CanvasObject, label string) *widget.Button {
	switch v := o.(type) {
	case *widget.Button:
		if v.Text == label {
			return v
		}
	case *fyne.Container:
		for _, c := range v.Objects {
			if b := findButton(c, label); b != nil {
				return b
			}
		}
	case fyne.Widget:
		r := test.WidgetRenderer(v)
		for _, c := range r.Objects() {
			if b := findButton(c, label); b != nil {
				return b
			}
		}
	}
	return nil
}

func TestHealthText(t *testing.T) {
	time.Local = time.UTC
	tests := []struct {
		name string
		h    view.AdapterHealth
		want []string
	}{
		{"never", view.AdapterHealth{}, []string{"Not captured yet"}},
		{"working", view.AdapterHealth{LastOK: "2026-11-30T10:00:00Z"}, []string{"Working; last capture 2026-11-30 10:00:00"}},
		{"format changed", view.AdapterHealth{LastOK: "2026-11-30T10:00:00Z", Malformed: 4,
			Problems: []view.Problem{{Path: "/h/.codex/sessions/r.jsonl", Line: 7, Error: "unexpected end"}}, Unknown: map[string]int{"b": 1, "a": 2}},
			[]string{"4 malformed records", "r.jsonl:7: unexpected end", "not read yet (the agent's format moved?): a, b"}},
		{"failing", view.AdapterHealth{LastOK: "2026-11-28T10:00:00Z", FailingSince: "2026-11-29T10:00:00Z", Error: "permission denied"},
			[]string{"Failing since 2026-11-29: permission denied", "Last worked 2026-11-28 10:00:00"}},
	}
	for _, tt := range tests {
		got := HealthText(tt.h)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tt.name, got, w)
			}
		}
	}
}

// TestSearchMoreSessions: the first answer holds firstSessions sessions; More (or ↓ past the
// last result) asks for more of the same answer, keeping the selection, until none are left.
func TestSearchMoreSessions(t *testing.T) {
	srv := daemontest.Start(t, "")
	for i := range 60 {
		ingestSession(t, srv.Client, fmt.Sprintf("many-%02d", i), "/srv/many", 2)
	}
	s, w := newSearch(t, srv.Client)
	w.Canvas().Focus(s.Entry)
	test.Type(s.Entry, "widgets")
	waitShown(t, s)
	var n int
	var more bool
	onUI(func() { n, more = len(s.Results()), s.More.Visible() })
	if n != firstSessions || !more {
		t.Fatalf("first answer: %d sessions, More shown %v; want %d and More", n, more, firstSessions)
	}
	onUI(func() {
		s.Move(firstSessions) // to the last result
		s.Move(1)             // past it: the next ones
	})
	wait(t, s.Done)
	var sel view.SessionHits
	onUI(func() { n, more, sel = len(s.Results()), s.More.Visible(), s.Results()[s.selected] })
	if n != firstSessions+moreSessions || !more {
		t.Fatalf("after ↓ past the last: %d sessions, More %v; want %d and More", n, more, firstSessions+moreSessions)
	}
	if sel.SessionID == "" || s.selected != firstSessions-1 {
		t.Errorf("the selection moved to %d, want it kept on %d", s.selected, firstSessions-1)
	}
	onUI(func() { test.Tap(s.More) })
	wait(t, s.Done)
	onUI(func() { n, more = len(s.Results()), s.More.Visible() })
	if n != 60 || more {
		t.Errorf("after More: %d sessions, More %v; want all 60 and no More", n, more)
	}
	if q, _ := s.Shown(); q != "widgets" {
		t.Errorf("shown %q", q)
	}
}
