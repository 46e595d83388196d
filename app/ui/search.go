package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// Modes are the search modes as the window names them, in order, with the API's names.
var Modes = []struct{ Label, Mode string }{
	{"Full text", view.ModeFTS},
	{"Semantic", view.ModeVector},
	{"Hybrid", view.ModeHybrid},
}

// Search is the search window's model and widgets.
type Search struct {
	API      API
	Win      fyne.Window
	Debounce time.Duration
	// OnOpen opens a transcript (the app opens a transcript window); OnResume restores.
	OnOpen   func(h view.SessionHits)
	OnResume func(h view.SessionHits)
	// OnResumeIn restores the selected result into another agent (the "Resume in…" choice).
	OnResumeIn func(h view.SessionHits, to string)
	ResumeIn   *widget.Select
	// OnErased runs after the selected result was erased (the app closes its transcript).
	OnErased func(id string)
	// Erasing is the erase dialog last opened (tests).
	Erasing *Erase
	// Copy puts text on the clipboard (the window's clipboard when nil).
	Copy func(string)

	Entry *searchEntry
	Mode  *widget.Select
	// The filters: agent ("Any agent" or a name), project (a substring), period, role.
	Agent   *widget.Select
	Project *widget.Entry
	Since   *widget.Select
	Role    *widget.Select
	// Now is the clock the period filter counts back from (time.Now when nil).
	Now    func() time.Time
	Status *widget.Label
	List   *widget.List
	Empty  *widget.Label
	// More asks for more sessions of the answer shown (also ↓ or j on its last result).
	More *widget.Button

	mu sync.Mutex
	// applying serializes answers being applied: Fyne's app driver runs them one at a time on
	// its goroutine anyway, its test driver runs each on the goroutine that got it.
	applying sync.Mutex
	seq      int
	timer    *time.Timer
	semantic string // why semantic search is unavailable; "" when it is
	results  []view.SessionHits
	selected int
	// limit is how many sessions the answer shown was asked for; hasMore says more matched.
	limit   int
	hasMore bool
	// shown and shownFilters are what the answer on screen was asked for.
	shown        string
	shownFilters view.SearchFilters
	Done         chan struct{} // tests: receives after each applied answer (nil: none)
	Dropped      chan string   // tests: receives the query of each answer dropped for a newer one
	// HideTiming leaves the milliseconds out of the status line (golden renders).
	HideTiming bool
}

// NewSearch builds the search window's content into w.
func NewSearch(api API, w fyne.Window) *Search {
	s := &Search{API: api, Win: w, Debounce: 150 * time.Millisecond, selected: -1}
	s.Entry = newSearchEntry(s)
	s.Entry.SetPlaceHolder("Search your agent sessions…")
	s.Entry.OnChanged = func(string) { s.schedule() }
	s.Entry.OnSubmitted = func(string) { s.open() }
	labels := make([]string, len(Modes))
	for i, m := range Modes {
		labels[i] = m.Label
	}
	s.Mode = widget.NewSelect(labels, nil)
	s.Mode.SetSelected(Modes[0].Label)
	s.Mode.OnChanged = func(l string) {
		if l != Modes[0].Label && s.semantic != "" {
			s.Status.SetText(s.semantic)
			s.Mode.SetSelected(Modes[0].Label)
			return
		}
		s.schedule()
	}
	s.Agent = widget.NewSelect([]string{anyAgent}, func(string) { s.schedule() })
	s.Agent.SetSelected(anyAgent)
	s.Project = widget.NewEntry()
	s.Project.SetPlaceHolder("Project contains…")
	s.Project.OnChanged = func(string) { s.schedule() }
	periods := make([]string, len(Periods))
	for i, p := range Periods {
		periods[i] = p.Label
	}
	s.Since = widget.NewSelect(periods, func(string) { s.schedule() })
	s.Since.SetSelected(Periods[0].Label)
	s.Role = widget.NewSelect([]string{anyRole, "user", "assistant"}, func(string) { s.schedule() })
	s.Role.SetSelected(anyRole)
	s.Status = widget.NewLabel("Type to search every captured session.")
	s.Status.Truncation = fyne.TextTruncateEllipsis
	s.More = widget.NewButton("More sessions", s.ShowMore)
	s.More.Hide()
	s.Empty = widget.NewLabel("")
	s.Empty.Wrapping = fyne.TextWrapWord
	s.Empty.Hide()
	s.List = widget.NewList(
		func() int { return len(s.results) },
		func() fyne.CanvasObject {
			title := widget.NewLabel("agent · project · date")
			title.TextStyle = fyne.TextStyle{Bold: true}
			title.Truncation = fyne.TextTruncateEllipsis
			snip := widget.NewLabel("snippet")
			snip.Truncation = fyne.TextTruncateEllipsis
			return container.NewVBox(title, snip)
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= len(s.results) {
				return
			}
			h := s.results[id]
			box := o.(*fyne.Container)
			box.Objects[0].(*widget.Label).SetText(Title(h))
			box.Objects[1].(*widget.Label).SetText(Snippet(h))
		})
	s.List.OnSelected = func(id widget.ListItemID) { s.selected = id }
	open := widget.NewButton("Open transcript (Enter)", s.open)
	resume := widget.NewButton("Resume (Ctrl+Enter)", s.resume)
	cp := widget.NewButton("Copy resume command (Ctrl+C)", s.copyCommand)
	erase := widget.NewButton("Erase…", s.EraseSelected)
	s.ResumeIn = widget.NewSelect(nil, nil)
	s.ResumeIn.PlaceHolder = "Resume in…"
	s.ResumeIn.OnChanged = func(to string) {
		if to == "" {
			return
		}
		s.ResumeIn.ClearSelected()
		if h, ok := s.Selected(); ok && s.OnResumeIn != nil {
			s.OnResumeIn(h, to)
		}
	}
	filters := container.NewBorder(nil, nil, s.Agent, container.NewHBox(s.Since, s.Role), s.Project)
	top := container.NewVBox(container.NewBorder(nil, nil, nil, s.Mode, s.Entry), filters)
	bottom := container.NewVBox(container.NewBorder(nil, nil, nil, erase, container.NewHBox(open, resume, s.ResumeIn, cp)),
		container.NewBorder(nil, nil, nil, s.More, s.Status))
	w.SetContent(container.NewBorder(top, bottom, nil, nil, container.NewStack(s.List, s.Empty)))
	w.Canvas().AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyReturn, Modifier: fyne.KeyModifierShortcutDefault}, func(fyne.Shortcut) { s.resume() })
	w.Canvas().AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyK, Modifier: fyne.KeyModifierShortcutDefault}, func(fyne.Shortcut) { s.Focus() })
	w.Canvas().SetOnTypedKey(func(k *fyne.KeyEvent) { s.key(k.Name) })
	w.Canvas().SetOnTypedRune(func(r rune) {
		switch r {
		case 'j':
			s.Move(1)
		case 'k':
			s.Move(-1)
		case '/':
			s.Focus()
		}
	})
	s.loadAgents()
	return s
}

const (
	anyAgent = "Any agent"
	anyRole  = "Any role"
)

// Periods are the period filter's choices: how many days back from today (0: no limit).
var Periods = []struct {
	Label string
	Days  int
}{{"Any time", 0}, {"Today", 1}, {"Past week", 7}, {"Past month", 31}, {"Past year", 366}}

// loadAgents fills the agent filter with the agents the daemon knows.
func (s *Search) loadAgents() {
	var ad *apitype.AdaptersResponse
	var err error
	ask(callTimeout, func(ctx context.Context) { ad, err = s.API.Adapters(ctx) }, func() {
		if err != nil {
			return // the filter keeps "Any agent"; a search says what is wrong with the daemon
		}
		names := []string{anyAgent}
		var targets []string
		for _, a := range ad.Adapters {
			names = append(names, a.Name)
			if a.Restore {
				targets = append(targets, a.Name)
			}
		}
		s.Agent.SetOptions(names)
		s.ResumeIn.SetOptions(targets)
	})
}

// Filters are the filters as the window shows them.
func (s *Search) Filters() view.SearchFilters {
	var f view.SearchFilters
	if a := s.Agent.Selected; a != "" && a != anyAgent {
		f.SourceAgent = a
	}
	f.Project = view.ProjectFilter(strings.TrimSpace(s.Project.Text))
	for _, p := range Periods {
		if p.Label == s.Since.Selected && p.Days > 0 {
			now := time.Now
			if s.Now != nil {
				now = s.Now
			}
			f.FromDate = now().UTC().AddDate(0, 0, 1-p.Days).Format(time.DateOnly)
		}
	}
	if r := s.Role.Selected; r != "" && r != anyRole {
		f.Role = r
	}
	return f
}

// Focus puts the cursor in the query.
func (s *Search) Focus() { s.Win.Canvas().Focus(s.Entry) }

// Refresh asks the daemon again for what the window shows (the daemon restarted).
func (s *Search) Refresh() {
	s.loadAgents()
	s.schedule()
}

// SetSemantic says why semantic and hybrid search are unavailable ("" when they are).
func (s *Search) SetSemantic(reason string) { s.semantic = reason }

func (s *Search) key(k fyne.KeyName) {
	switch k {
	case fyne.KeyDown:
		s.Move(1)
	case fyne.KeyUp:
		s.Move(-1)
	case fyne.KeyReturn, fyne.KeyEnter:
		s.open()
	case fyne.KeyEscape:
		s.Win.Hide()
	}
}

// Move moves the selection by d results.
func (s *Search) Move(d int) {
	if len(s.results) == 0 {
		return
	}
	n := s.selected + d
	if n < 0 {
		n = 0
	}
	if n >= len(s.results) {
		n = len(s.results) - 1
		if d > 0 && s.selected == n {
			s.ShowMore() // past the last result: the next ones, when more matched
		}
	}
	s.List.Select(n)
	s.selected = n
}

// Selected is the selected result, or the first when none is.
func (s *Search) Selected() (view.SessionHits, bool) {
	if len(s.results) == 0 {
		return view.SessionHits{}, false
	}
	i := s.selected
	if i < 0 || i >= len(s.results) {
		i = 0
	}
	return s.results[i], true
}

// Results are the sessions shown.
func (s *Search) Results() []view.SessionHits { return s.results }

// OpenSelected opens the selected (or first) result's transcript, as Enter does.
func (s *Search) OpenSelected() { s.open() }

func (s *Search) open() {
	if h, ok := s.Selected(); ok && s.OnOpen != nil {
		s.OnOpen(h)
	}
}

// ResumeSelected resumes the selected (or first) result, as Ctrl+Enter does.
func (s *Search) ResumeSelected() { s.resume() }

func (s *Search) resume() {
	if h, ok := s.Selected(); ok && s.OnResume != nil {
		s.OnResume(h)
	}
}

// EraseSelected opens the erase dialog for the selected (or first) result; once erased, the
// results are asked for again.
func (s *Search) EraseSelected() {
	h, ok := s.Selected()
	if !ok {
		return
	}
	s.Erasing = NewErase(s.API, s.Win, view.EraseRequest{Sessions: []string{h.SessionID}}, "")
	s.Erasing.OnErased = func(*view.EraseReport) {
		s.schedule()
		if s.OnErased != nil {
			s.OnErased(h.SessionID)
		}
	}
	s.Erasing.Show()
}

func (s *Search) copyCommand() {
	h, ok := s.Selected()
	if !ok {
		return
	}
	cmd := ResumeCommand(h)
	s.copy(cmd)
	s.Status.SetText("Copied: " + cmd)
}

func (s *Search) copy(text string) {
	if s.Copy != nil {
		s.Copy(text)
		return
	}
	fyne.CurrentApp().Clipboard().SetContent(text)
}

func (s *Search) mode() string {
	for _, m := range Modes {
		if m.Label == s.Mode.Selected {
			return m.Mode
		}
	}
	return view.ModeFTS
}

// schedule runs the query after the debounce; a later keystroke replaces it, and an answer
// to an older query is dropped.
func (s *Search) schedule() {
	if s.Role == nil {
		return // still being built: a select's first SetSelected calls back
	}
	q, mode, filters := strings.TrimSpace(s.Entry.Text), s.mode(), s.Filters()
	s.mu.Lock()
	s.seq++
	seq := s.seq
	if s.timer != nil {
		s.timer.Stop()
	}
	s.timer = time.AfterFunc(s.Debounce, func() { s.run(seq, q, mode, filters, firstSessions, false) })
	s.mu.Unlock()
}

// Sessions a search window asks for: a first answer of firstSessions (measured on the 1M
// benchmark archive, 50 sessions cost keystroke → results 139 ms p95 where 20 cost 85 ms:
// the ranking pool and the rows drawn grow with them), then moreSessions more at a time.
const (
	firstSessions = 20
	moreSessions  = 30
)

// ShowMore asks again for the answer shown with moreSessions more sessions, keeping the
// selection, when more matched.
func (s *Search) ShowMore() {
	s.mu.Lock()
	if !s.hasMore || s.limit >= view.MaxSearchLimit || s.shown == "" {
		s.mu.Unlock()
		return
	}
	s.seq++
	seq, q, filters, limit := s.seq, s.shown, s.shownFilters, min(s.limit+moreSessions, view.MaxSearchLimit)
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
	s.More.Disable()
	go s.run(seq, q, s.mode(), filters, limit, true)
}

func (s *Search) current(seq int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return seq == s.seq
}

// run asks for q with limit sessions; more says it extends the answer shown.
func (s *Search) run(seq int, q, mode string, filters view.SearchFilters, limit int, more bool) {
	if q == "" {
		do(func() {
			s.applying.Lock()
			defer s.applying.Unlock()
			if s.current(seq) {
				s.show(q, filters, 0, false)
				s.apply(q, nil, nil, false)
			}
		})
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	req := &apitype.SearchRequest{SearchRequest: view.SearchRequest{Query: q, Mode: mode, Filters: filters, Limit: limit}}
	res, err := s.API.Search(ctx, req)
	if !s.current(seq) {
		s.dropped(q) // a newer keystroke owns the window
		return
	}
	do(func() {
		s.applying.Lock()
		defer s.applying.Unlock()
		if s.current(seq) {
			s.show(q, filters, limit, err == nil && res.HasMore)
			s.apply(q, res, err, more)
		} else {
			s.dropped(q)
		}
	})
}

// show records which query, filters and number of sessions the window's answer is for, and
// whether more sessions matched.
func (s *Search) show(q string, f view.SearchFilters, limit int, hasMore bool) {
	s.mu.Lock()
	s.shown, s.shownFilters, s.limit, s.hasMore = q, f, limit, hasMore
	s.mu.Unlock()
}

// Shown is the query and filters of the answer the window shows.
func (s *Search) Shown() (string, view.SearchFilters) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shown, s.shownFilters
}

func (s *Search) dropped(q string) {
	if s.Dropped != nil {
		select {
		case s.Dropped <- q:
		default:
		}
	}
}

// apply shows an answer; more keeps the selection and scroll of the answer it extends.
func (s *Search) apply(q string, res *view.SearchResult, err error, more bool) {
	defer func() {
		if s.Done != nil {
			select {
			case s.Done <- struct{}{}:
			default:
			}
		}
	}()
	if !more || err != nil {
		s.selected = -1
		s.List.UnselectAll()
	}
	if s.hasMore && s.limit < view.MaxSearchLimit {
		s.More.Enable()
		s.More.Show()
	} else {
		s.More.Hide()
	}
	switch {
	case err != nil:
		s.results = nil
		s.Empty.SetText("Search failed: " + err.Error() + "\nIs the daemon running? The tray's menu can start it.")
		s.Empty.Show()
		s.Status.SetText("")
	case res == nil:
		s.results = nil
		s.Empty.Hide()
		s.Status.SetText("Type to search every captured session.")
	case len(res.Sessions) == 0:
		s.results = nil
		s.Empty.SetText(EmptyText(q, res, s.Filters() != view.SearchFilters{}))
		s.Empty.Show()
		s.Status.SetText(fmt.Sprintf("No matches (%s%s)", res.Mode, s.timing(res)))
	default:
		s.results = res.Sessions
		s.Empty.Hide()
		more := ""
		if res.HasMore {
			more = "+"
		}
		sessions := "sessions"
		if len(res.Sessions) == 1 && more == "" {
			sessions = "session"
		}
		s.Status.SetText(fmt.Sprintf("%d%s %s, %d matching messages (%s%s)", len(res.Sessions), more, sessions, res.MatchedTotal, res.Mode, s.timing(res)))
	}
	s.List.Refresh()
	switch {
	case more && s.selected >= 0 && s.selected < len(s.results):
		s.List.Select(s.selected)
	case len(s.results) > 0 && !more:
		s.List.ScrollToTop()
	}
}

func (s *Search) timing(res *view.SearchResult) string {
	if s.HideTiming {
		return ""
	}
	return fmt.Sprintf(", %.0f ms", res.ElapsedMS)
}

// EmptyText says what to try when a search found nothing, rather than implying absence.
func EmptyText(q string, res *view.SearchResult, filtered bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Nothing matched “%s”.", q)
	if filtered {
		b.WriteString("\nThe filters narrow it: try Any agent, Any time, Any role or no project.")
	}
	if res.Mode == view.ModeFTS {
		b.WriteString("\nTry fewer or shorter words, a prefix (refact*), or Hybrid mode to find related wording.")
	} else {
		b.WriteString("\nTry Full text for exact words, or fewer words.")
	}
	if res.Hint != "" {
		b.WriteString("\n" + res.Hint)
	}
	if res.SearchableInScope == 0 {
		b.WriteString("\nNothing is captured yet: check Adapters… in the tray, then Sync now.")
	}
	return b.String()
}

// Title is a result's heading: agent · project · date · matches.
func Title(h view.SessionHits) string {
	date := h.CreatedAt
	if t, err := time.Parse(time.RFC3339Nano, h.CreatedAt); err == nil {
		date = t.Local().Format("2006-01-02 15:04")
	}
	proj := h.Project
	if proj == "" {
		proj = "(no project)"
	}
	return fmt.Sprintf("%s · %s · %s · %d of %d messages", h.SourceAgent, proj, date, h.MatchedMessageCount, h.SessionMessagesCount)
}

// Snippet is a result's best line of text.
func Snippet(h view.SessionHits) string {
	if len(h.Matches) == 0 {
		return ""
	}
	m := h.Matches[0]
	return m.Role + ": " + strings.Join(strings.Fields(m.Text), " ")
}

// ResumeCommand is the command that restores and resumes h in its own agent.
func ResumeCommand(h view.SessionHits) string {
	return "pond resume " + h.SessionID + " --to " + h.SourceAgent
}

// searchEntry is the query field: arrows, Escape and Ctrl+C (with no selection) act on the
// results instead of the text.
type searchEntry struct {
	widget.Entry
	s *Search
}

func newSearchEntry(s *Search) *searchEntry {
	e := &searchEntry{s: s}
	e.ExtendBaseWidget(e)
	return e
}

func (e *searchEntry) TypedKey(k *fyne.KeyEvent) {
	switch k.Name {
	case fyne.KeyUp, fyne.KeyDown, fyne.KeyEscape:
		e.s.key(k.Name)
		return
	}
	e.Entry.TypedKey(k)
}

func (e *searchEntry) TypedShortcut(sc fyne.Shortcut) {
	if _, ok := sc.(*fyne.ShortcutCopy); ok && e.SelectedText() == "" {
		e.s.copyCommand()
		return
	}
	if cs, ok := sc.(*desktop.CustomShortcut); ok && cs.KeyName == fyne.KeyReturn {
		e.s.resume()
		return
	}
	e.Entry.TypedShortcut(sc)
}
