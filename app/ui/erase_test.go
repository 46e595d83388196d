package ui

import (
	"context"
	"errors"
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

// stored says whether the daemon still holds session id.
func stored(t *testing.T, srv *daemontest.Served, id string) bool {
	t.Helper()
	_, err := srv.Client.GetSession(context.Background(), &apitype.GetSessionRequest{GetSessionRequest: view.GetSessionRequest{ID: id, Limit: 1}})
	var ae *apitype.Error
	if errors.As(err, &ae) && ae.Code == apitype.CodeNotFound {
		return false
	}
	if err != nil {
		t.Fatalf("get session %s: %v", id, err)
	}
	return true
}

// waitPlan waits until the dialog shows the daemon's plan (or why there is none).
func waitPlan(t *testing.T, e *Erase) {
	t.Helper()
	waitFor(t, func() bool { return !strings.HasPrefix(e.Plan.Text, "Looking up") })
}

// TestEraseFromSearch: "Erase…" on a result lists the session and erases nothing until the
// confirmation; Cancel leaves it; confirmed, the daemon erases it, the dialog says what went,
// and the results are asked for again without it.
func TestEraseFromSearch(t *testing.T) {
	srv := archive(t)
	s, w := newSearch(t, srv.Client)
	w.Canvas().Focus(s.Entry)
	test.Type(s.Entry, "test")
	waitShown(t, s)
	h, ok := s.Selected()
	if !ok {
		t.Fatal("no result for test")
	}
	var erasedID string
	s.OnErased = func(id string) { erasedID = id }

	// cancelled: nothing goes
	onUI(s.EraseSelected)
	waitPlan(t, s.Erasing)
	// the fixture's first session has sub-agents: they are listed and go with it
	if !strings.HasPrefix(s.Erasing.Plan.Text, "Erase these") || !strings.Contains(s.Erasing.Plan.Text, "claude-code · /srv/demo") ||
		!strings.Contains(s.Erasing.Plan.Text, "a sub-agent's") {
		t.Errorf("plan %q", s.Erasing.Plan.Text)
	}
	if s.Erasing.Confirm.Disabled() {
		t.Fatal("confirm disabled under a plan")
	}
	onUI(func() { test.Tap(s.Erasing.Cancel) })
	if !stored(t, srv, h.SessionID) {
		t.Fatal("cancel erased the session")
	}

	// confirmed
	onUI(s.EraseSelected)
	e := s.Erasing
	waitPlan(t, e)
	onUI(func() { test.Tap(e.Confirm) })
	waitFor(t, func() bool { return e.erased || strings.HasPrefix(e.Step.Text, "The erase failed") })
	if !e.erased {
		t.Fatalf("erase: %q", e.Step.Text)
	}
	if !strings.HasPrefix(e.Plan.Text, "Erased 4 sessions") {
		t.Errorf("outcome %q", e.Plan.Text)
	}
	if stored(t, srv, h.SessionID) {
		t.Error("the session is still stored after the erase")
	}
	if erasedID != h.SessionID {
		t.Errorf("OnErased got %q, want %q", erasedID, h.SessionID)
	}
	waitShown(t, s)
	for _, r := range s.Results() {
		if r.SessionID == h.SessionID {
			t.Error("the erased session is still among the results")
		}
	}
}

// TestEraseFromTranscript: the transcript's "Erase this session…" erases it once confirmed,
// and closing the dialog afterwards closes the window's session (OnClosed).
func TestEraseFromTranscript(t *testing.T) {
	srv := archive(t)
	h := firstHit(t, srv)
	a := test.NewTempApp(t)
	w := a.NewWindow("t")
	w.Resize(fyne.NewSize(760, 640))
	es := NewEraseSession(srv.Client, w, h.SessionID)
	closed := false
	es.OnClosed = func() { closed = true }
	tr := BuildTranscript(srv.Client, w, h.SessionID, es.Button)
	tr.Done = make(chan struct{}, 1)
	onUI(tr.Load)
	wait(t, tr.Done)
	if findButton(w.Content(), "Erase this session…") == nil {
		t.Fatal("no erase action in the transcript window")
	}
	onUI(func() { test.Tap(es.Button) })
	waitPlan(t, es.Open)
	onUI(func() { test.Tap(es.Open.Confirm) })
	waitFor(t, func() bool { return es.Open.erased || strings.HasPrefix(es.Open.Step.Text, "The erase failed") })
	if stored(t, srv, h.SessionID) {
		t.Fatalf("still stored: %q", es.Open.Step.Text)
	}
	if closed {
		t.Error("closed before the dialog was")
	}
	onUI(func() { test.Tap(es.Open.Cancel) })
	if !closed {
		t.Error("the dialog closed after the erase without OnClosed")
	}
}

// TestEraseDialog keeps the confirmation's markup and picture.
func TestEraseDialog(t *testing.T) {
	time.Local = time.UTC
	srv := archive(t)
	h := firstHit(t, srv)
	a := test.NewTempApp(t)
	w := a.NewWindow("erase")
	w.SetContent(widget.NewLabel("a window"))
	w.Resize(fyne.NewSize(700, 420))
	e := NewErase(srv.Client, w, view.EraseRequest{Sessions: []string{h.SessionID}}, "")
	onUI(e.Show)
	waitPlan(t, e)
	test.AssertRendersToMarkup(t, "erase_confirm.xml", w.Canvas())
	test.AssertImageMatches(t, "erase_confirm.png", w.Canvas().Capture())
}

// TestErasePlanText: what the confirmation and the outcome say, archived strings escaped.
func TestErasePlanText(t *testing.T) {
	time.Local = time.UTC
	day := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
	var many []view.ErasedSession
	for i := 0; i < 10; i++ {
		many = append(many, view.ErasedSession{ID: "s", Agent: "codex-cli", Project: "/p", CreatedAt: day, Messages: 2})
	}
	tests := []struct {
		name string
		got  string
		want []string
	}{
		{"one", PlanText(&view.EraseReport{DryRun: true, Sessions: []view.ErasedSession{{ID: "a", Agent: "claude-code", Project: "/w/x\x1b[31m", CreatedAt: day, Messages: 1}},
			Removed: view.Tally{Sessions: 1, Messages: 1}}),
			[]string{"Erase this session for good?", "• claude-code · /w/x\\x1b[31m · 2026-11-03 · 1 message", "Its 1 message,", "not capture it again"}},
		{"many", PlanText(&view.EraseReport{DryRun: true, Sessions: many, Removed: view.Tally{Sessions: 10, Messages: 20}, Exports: []string{"exports/a.jsonl"}}),
			[]string{"Erase these 10 sessions for good?", "… and 2 more", "Their 20 messages", "The export exports/a.jsonl holds one of them"}},
		{"erased", ErasedText(&view.EraseReport{Removed: view.Tally{Sessions: 2, Messages: 7}, BytesReclaimed: 3 << 20}),
			[]string{"Erased 2 sessions (7 messages).", "gave back 3.0 MiB"}},
		{"step", StepText(&view.EraseProgress{Step: "rewrite", Table: "parts"}), []string{"Rewriting the data files that held them (parts)…"}},
		{"step-unknown", StepText(&view.EraseProgress{Step: "redact 3/9 sessions"}), []string{"Redact 3/9 sessions…"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, w := range tt.want {
				if !strings.Contains(tt.got, w) {
					t.Errorf("got %q, want it to hold %q", tt.got, w)
				}
			}
			if strings.Contains(tt.got, "\x1b") {
				t.Errorf("a control character reached the window: %q", tt.got)
			}
		})
	}
}

// TestPrivacySettings: redaction switched on in the settings reaches the daemon's config; an
// excluded project is listed, offers to erase what the archive holds under it, and erases it
// once confirmed; "Capture again" takes it off.
func TestPrivacySettings(t *testing.T) {
	srv := archive(t)
	a := test.NewTempApp(t)
	w := a.NewWindow("settings")
	w.Resize(fyne.NewSize(680, 520))
	s := NewSettings(srv.Client, w, Prefs{P: a.Preferences()}, srv.Dirs.Data.Path, func(string) string { return "" })
	waitFor(t, func() bool { return !s.Redact.Disabled() && strings.HasPrefix(s.RedactInfo.Text, "Redaction is off") })
	onUI(func() { s.Tabs.SelectIndex(len(s.Tabs.Items) - 1) })
	test.AssertRendersToMarkup(t, "settings_privacy.xml", w.Canvas())

	onUI(func() { s.Redact.SetChecked(true) })
	waitFor(t, func() bool { return strings.HasPrefix(s.RedactInfo.Text, "Redaction is on") })
	p, err := srv.Client.Privacy(context.Background())
	if err != nil || !p.Redaction.Enabled {
		t.Fatalf("daemon's redaction after the switch: %+v, %v", p, err)
	}

	h := firstHit(t, srv)
	onUI(func() { s.ExcludeGlob.SetText("/srv/demo"); test.Tap(s.Exclude) })
	waitFor(t, func() bool { return s.Erasing != nil && !strings.HasPrefix(s.Erasing.Plan.Text, "Looking up") })
	if s.Include["/srv/demo"] == nil {
		t.Errorf("excluded list %v", s.Excluded)
	}
	if !strings.Contains(s.Erasing.Plan.Text, "/srv/demo") || s.Erasing.Confirm.Disabled() {
		t.Errorf("offer to erase: %q", s.Erasing.Plan.Text)
	}
	if !stored(t, srv, h.SessionID) {
		t.Fatal("erased before the confirmation")
	}
	onUI(func() { test.Tap(s.Erasing.Confirm) })
	waitFor(t, func() bool { return s.Erasing.erased || strings.HasPrefix(s.Erasing.Step.Text, "The erase failed") })
	if stored(t, srv, h.SessionID) {
		t.Errorf("the excluded project's session is still stored: %q", s.Erasing.Step.Text)
	}
	p, err = srv.Client.Privacy(context.Background())
	if err != nil || len(p.ExcludeProjects) != 1 || p.ExcludeProjects[0] != "/srv/demo" {
		t.Fatalf("daemon's excluded projects: %+v, %v", p, err)
	}

	onUI(func() { test.Tap(s.Include["/srv/demo"]) })
	waitFor(t, func() bool { return len(s.Excluded) == 0 })
	if p, err = srv.Client.Privacy(context.Background()); err != nil || len(p.ExcludeProjects) != 0 {
		t.Errorf("after Capture again: %+v, %v", p, err)
	}
}

// TestConsentRedaction: the consent window offers redaction, off by default; the switch
// reaches the daemon.
func TestConsentRedaction(t *testing.T) {
	srv := daemontest.Start(t, "../../adapters/claudecode/testdata/projects")
	a := test.NewTempApp(t)
	w := a.NewWindow("consent")
	c := NewConsent(srv.Client, w, srv.Dirs.Data.Path)
	waitFor(t, func() bool { return !c.Redact.Disabled() })
	if c.Redact.Checked {
		t.Fatal("redaction shown on by default")
	}
	onUI(func() { c.Redact.SetChecked(true) })
	waitFor(t, func() bool { return strings.HasPrefix(c.Current.Text, "Redaction is on") })
	if p, err := srv.Client.Privacy(context.Background()); err != nil || !p.Redaction.Enabled {
		t.Errorf("daemon's redaction: %+v, %v", p, err)
	}
}

// TestEraseReadOnly: while read-only the dialog still lists, but the erase is refused with the
// daemon's reason and nothing goes.
func TestEraseReadOnly(t *testing.T) {
	srv := archive(t)
	h := firstHit(t, srv)
	g := NewGuard(srv.Client)
	g.set(ReadOnlyText("peer uid 1001 is not the daemon's user"))
	a := test.NewTempApp(t)
	w := a.NewWindow("t")
	e := NewErase(g, w, view.EraseRequest{Sessions: []string{h.SessionID}}, "")
	onUI(e.Show)
	waitPlan(t, e)
	onUI(func() { test.Tap(e.Confirm) })
	waitFor(t, func() bool { return strings.HasPrefix(e.Step.Text, "The erase failed") })
	if !strings.Contains(e.Step.Text, "peer uid 1001") || !stored(t, srv, h.SessionID) {
		t.Errorf("read-only erase: %q, stored %v", e.Step.Text, stored(t, srv, h.SessionID))
	}
}
