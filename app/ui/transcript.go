package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
)

// PageSize is how many messages one get-session call brings.
const PageSize = 50

// Transcript is a session's window: a virtualised list of its messages (only the rows on
// screen exist as widgets), pages loaded from either end as the list reaches them, user,
// assistant and tool turns styled apart, tool calls folded with their results, a copy button
// per message, and find in session (`/`).
type Transcript struct {
	API     API
	Win     fyne.Window
	Session string
	Header  *widget.Label
	List    *widget.List
	Status  *widget.Label
	// Find is the find-in-session field (shown by `/`), FindInfo what it found.
	Find     *widget.Entry
	FindInfo *widget.Label
	findBar  *fyne.Container
	// Copy puts text on the clipboard (the app's when nil).
	Copy func(string)

	msgs        []view.MessageView
	first       int // 1-based position of msgs[0] in the session
	before      int // messages before msgs[0] not loaded
	after       int // messages after the last one not loaded
	info        view.SessionInfo
	loading     bool
	want        int               // the direction of a page asked for while one was loading
	open        map[string]bool   // tool parts unfolded, by message id and part index
	details     map[string]string // their bodies, once fetched
	heights     map[int]float32   // measured row heights, by row (a row is a message's position)
	measuredAt  map[int]float32   // the width each row was measured at
	width       float32           // the list's width last seen
	version     map[int]int       // bumped when a row's content changes (unfolded, fetched)
	probe       *turnRow          // measures rows off screen
	total       int               // the session's messages: the list's rows
	hits        []view.Hit        // find's hits, in session order
	hitAt       int
	found       string // the query hits answer
	focusID     string // the message to show (a search hit) once loaded
	Highlighted string // the message last scrolled to by find or a hit

	// AutoLoad loads the next page when the list shows the row that stands for it (on; tests
	// turn it off to load pages themselves).
	AutoLoad bool

	Done  chan struct{} // tests: receives after each applied page
	Shown int           // messages loaded
}

// NewTranscript builds the window for session id into w and loads its first page.
func NewTranscript(api API, w fyne.Window, id string, resume fyne.CanvasObject) *Transcript {
	t := BuildTranscript(api, w, id, resume)
	t.Load()
	return t
}

// BuildTranscript builds the window without loading anything yet; resume is the row of resume
// actions shown in the header (nil for none).
func BuildTranscript(api API, w fyne.Window, id string, resume fyne.CanvasObject) *Transcript {
	t := &Transcript{API: api, Win: w, Session: id, AutoLoad: true, open: map[string]bool{}, details: map[string]string{},
		heights: map[int]float32{}, measuredAt: map[int]float32{}, version: map[int]int{}}
	t.Header = widget.NewLabel("Loading " + id + "…")
	t.Header.TextStyle = fyne.TextStyle{Bold: true}
	t.Header.Truncation = fyne.TextTruncateEllipsis
	t.Status = widget.NewLabel("")
	t.Find = widget.NewEntry()
	t.Find.SetPlaceHolder("Find in this session…")
	t.Find.OnSubmitted = func(q string) {
		if q == t.found && len(t.hits) > 0 {
			t.NextHit(1)
			return
		}
		t.FindText(q)
	}
	t.FindInfo = widget.NewLabel("")
	prev := widget.NewButtonWithIcon("", theme.MoveUpIcon(), func() { t.NextHit(-1) })
	next := widget.NewButtonWithIcon("", theme.MoveDownIcon(), func() { t.NextHit(1) })
	t.findBar = container.NewBorder(nil, nil, nil, container.NewHBox(t.FindInfo, prev, next), t.Find)
	t.findBar.Hide()
	t.List = widget.NewList(t.length, t.newRow, t.updateRow)
	t.List.HideSeparators = true
	var head fyne.CanvasObject = t.Header
	if resume != nil {
		head = container.NewBorder(nil, nil, nil, resume, t.Header)
	}
	list := &fyne.Container{Layout: widthWatch{t}, Objects: []fyne.CanvasObject{t.List}}
	w.SetContent(container.NewBorder(container.NewVBox(head, t.findBar), t.Status, nil, nil, list))
	w.Canvas().SetOnTypedKey(func(k *fyne.KeyEvent) {
		if k.Name == fyne.KeyEscape {
			w.Close()
		}
	})
	w.Canvas().SetOnTypedRune(func(r rune) {
		if r == '/' {
			t.ShowFind()
		}
	})
	return t
}

// ShowFind shows the find field and puts the cursor in it.
func (t *Transcript) ShowFind() {
	t.findBar.Show()
	t.Win.Canvas().Focus(t.Find)
}

// Load fetches the session's first page (or, after OpenAt, the page at the hit).
func (t *Transcript) Load() {
	if t.focusID != "" {
		t.fetch(view.GetSessionRequest{ID: t.Session, AtMessageID: t.focusID, Limit: PageSize}, pageAt)
		return
	}
	t.fetch(view.GetSessionRequest{ID: t.Session, Limit: PageSize}, pageAt)
}

// LoadEnd fetches the session's last page, replacing what is shown.
func (t *Transcript) LoadEnd() {
	t.fetch(view.GetSessionRequest{ID: t.Session, Limit: PageSize, From: "end"}, pageAt)
}

// OwnHit is the best hit of h that is a message of h's own session, or "": a session's group
// also holds hits in its sub-agents' sessions (Hit.SessionID says whose), which its transcript
// does not show.
func OwnHit(h view.SessionHits) string {
	for _, m := range h.Matches {
		if m.MessageID != "" && (m.SessionID == "" || m.SessionID == h.SessionID) {
			return m.MessageID
		}
	}
	return ""
}

// OpenAt loads the page of this session that starts at message id (a search hit) and scrolls
// to it. The session is named too: another session (a restored copy) may hold the same id.
func (t *Transcript) OpenAt(messageID string) {
	t.focusID = messageID
	t.fetch(view.GetSessionRequest{ID: t.Session, AtMessageID: messageID, Limit: PageSize}, pageAt)
}

// LoadAfter and LoadBefore extend what is shown by a page at either end.
func (t *Transcript) LoadAfter() {
	if len(t.msgs) > 0 && t.after > 0 {
		t.fetch(view.GetSessionRequest{ID: t.Session, Limit: PageSize, AfterMessageID: t.msgs[len(t.msgs)-1].ID}, pageAfter)
	}
}

func (t *Transcript) LoadBefore() {
	if len(t.msgs) > 0 && t.before > 0 {
		t.fetch(view.GetSessionRequest{ID: t.Session, Limit: PageSize, BeforeMessageID: t.msgs[0].ID}, pageBefore)
	}
}

type pageKind int

const (
	pageAt   pageKind = iota
	pageJump          // a page where the user scrolled: loaded in place, not scrolled to
	pageAfter
	pageBefore
)

func (t *Transcript) fetch(req view.GetSessionRequest, kind pageKind) {
	if t.loading {
		return
	}
	t.loading = true
	var p *view.SessionPage
	var err error
	ask(callTimeout, func(ctx context.Context) {
		p, err = t.API.GetSession(ctx, &apitype.GetSessionRequest{GetSessionRequest: req})
	}, func() { t.apply(p, err, kind) })
}

func (t *Transcript) apply(p *view.SessionPage, err error, kind pageKind) {
	defer func() {
		if t.Done != nil {
			select {
			case t.Done <- struct{}{}:
			default:
			}
		}
	}()
	// Still loading while the page is laid out: rows not loaded that show meanwhile ask for the
	// next page once this one is in (want), never while it goes in.
	t.want = 0
	defer func() {
		t.loading = false
		if err == nil && t.AutoLoad && t.want != 0 {
			t.loadToward(t.want)
		}
	}()
	if err != nil {
		t.Status.SetText("Could not load the session: " + err.Error())
		return
	}
	si := p.Session
	t.info = si
	t.Header.SetText(fmt.Sprintf("%s · %s · %s · %d messages", si.SourceAgent, si.Project, day(si.CreatedAt), si.Messages))
	t.Win.SetTitle("Pond — " + si.SourceAgent + " · " + si.Project)
	first := p.FirstIndex
	if first == 0 {
		first = 1
	}
	scrollTo := -1
	switch kind {
	case pageAt, pageJump:
		t.msgs = append([]view.MessageView(nil), p.Messages...)
		t.first, t.before, t.after = first, p.BeforeRemaining, p.AfterRemaining
		if kind == pageAt {
			scrollTo = first - 1
		}
	case pageAfter:
		t.msgs = append(t.msgs, p.Messages...)
		t.after = p.AfterRemaining
	case pageBefore:
		t.msgs = append(append([]view.MessageView(nil), p.Messages...), t.msgs...)
		t.first, t.before = first, p.BeforeRemaining
	}
	t.total = max(si.Messages, t.first-1+len(t.msgs)+t.after)
	t.Shown = len(t.msgs)
	if t.focusID != "" {
		if i := t.indexOf(t.focusID); i >= 0 {
			scrollTo = t.row(i)
			t.Highlighted = t.focusID
		}
		t.focusID = ""
	}
	// Rows are positions in the session, so a page measured once keeps its heights whichever
	// end the next page comes from.
	for i := range p.Messages {
		t.measure(first - 1 + i)
	}
	t.List.Refresh()
	if scrollTo >= 0 {
		t.List.ScrollTo(scrollTo)
	}
	t.Status.SetText(fmt.Sprintf("Messages %d–%d of %d loaded", t.first, t.first+len(t.msgs)-1, si.Messages))
	if len(t.msgs) == 0 {
		t.Status.SetText("This session has no messages.")
	}
}

func (t *Transcript) indexOf(id string) int {
	return slices.IndexFunc(t.msgs, func(m view.MessageView) bool { return m.ID == id })
}

// Messages are the messages loaded, in order.
func (t *Transcript) Messages() []view.MessageView { return t.msgs }

// Remaining says how many messages are not loaded before and after the ones shown.
func (t *Transcript) Remaining() (before, after int) { return t.before, t.after }

// The list has a row per message of the session, loaded or not: a row not loaded yet shows a
// placeholder and, once on screen, loads the page towards it.
func (t *Transcript) length() int { return t.total }

// row is the list row of loaded message i.
func (t *Transcript) row(i int) int { return t.first - 1 + i }

// message is the loaded message at row id.
func (t *Transcript) message(id int) (view.MessageView, bool) {
	i := id - (t.first - 1)
	if i < 0 || i >= len(t.msgs) {
		return view.MessageView{}, false
	}
	return t.msgs[i], true
}

// Which page a row not loaded asks for.
const (
	wantAfter = 1 + iota
	wantBefore
	wantStart
	wantEnd
)

func (t *Transcript) loadToward(dir int) {
	switch dir {
	case wantAfter:
		t.LoadAfter()
	case wantBefore:
		t.LoadBefore()
	case wantStart:
		t.fetch(view.GetSessionRequest{ID: t.Session, Limit: PageSize}, pageJump)
	case wantEnd:
		t.fetch(view.GetSessionRequest{ID: t.Session, Limit: PageSize, From: "end"}, pageJump)
	}
}

// turnRow is one row of the list: a message, or a placeholder for one not loaded yet.
type turnRow struct {
	widget.BaseWidget
	t     *Transcript
	bg    *canvas.Rectangle
	bar   *canvas.Rectangle
	role  *widget.Label
	copy  *widget.Button
	body  *widget.Label
	tools *fyne.Container
	more  *widget.Label
	msg   *fyne.Container
	id    int
	key   string // what the row shows now; an update with the same key does nothing
}

func (t *Transcript) newRow() fyne.CanvasObject {
	r := &turnRow{t: t, id: -1}
	r.bg = canvas.NewRectangle(color.Transparent)
	r.bar = canvas.NewRectangle(color.Transparent)
	r.bar.SetMinSize(fyne.NewSize(4, 4))
	r.role = widget.NewLabel("ROLE")
	r.role.TextStyle = fyne.TextStyle{Bold: true}
	r.copy = widget.NewButtonWithIcon("", theme.ContentCopyIcon(), func() { r.copyText() })
	r.copy.Importance = widget.LowImportance
	r.body = widget.NewLabel("")
	r.body.Wrapping = fyne.TextWrapWord
	r.tools = container.NewVBox()
	r.more = widget.NewLabel("")
	r.more.Hide()
	r.msg = container.NewStack(r.bg, container.NewBorder(nil, nil, r.bar, nil,
		container.NewVBox(container.NewBorder(nil, nil, nil, r.copy, r.role), r.body, r.tools)))
	r.ExtendBaseWidget(r)
	return r
}

func (r *turnRow) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewStack(r.msg, r.more))
}

func (r *turnRow) copyText() {
	if m, ok := r.t.message(r.id); ok {
		r.t.CopyMessage(m.ID)
	}
}

// CopyMessage puts message id's text on the clipboard.
func (t *Transcript) CopyMessage(id string) {
	i := t.indexOf(id)
	if i < 0 {
		return
	}
	text := messageText(t.msgs[i])
	if t.Copy != nil {
		t.Copy(text)
	} else {
		fyne.CurrentApp().Clipboard().SetContent(text)
	}
	t.Status.SetText("Copied the message.")
}

func messageText(m view.MessageView) string {
	if m.Text != "" {
		return m.Text
	}
	return m.Content
}

func (t *Transcript) updateRow(id widget.ListItemID, o fyne.CanvasObject) {
	r := o.(*turnRow)
	m, ok := t.message(id)
	if !ok {
		r.showPlaceholder(id)
		if t.AutoLoad && len(t.msgs) > 0 {
			dir := wantBefore
			switch lo, hi := t.row(0), t.row(len(t.msgs)); {
			case id < PageSize && id < lo-PageSize:
				dir = wantStart // a jump to the top: load it rather than every page on the way
			case id >= t.total-PageSize && id >= hi+PageSize:
				dir = wantEnd
			case id >= hi:
				dir = wantAfter // the list reached past the loaded end
			}
			if t.loading {
				t.want = dir
			} else {
				t.loadToward(dir)
			}
		}
		return
	}
	r.showMessage(id, m)
}

func (r *turnRow) showPlaceholder(id int) {
	key := fmt.Sprintf("placeholder %d", id)
	if r.key == key {
		return
	}
	r.key, r.id = key, id
	r.msg.Hide()
	r.more.SetText(fmt.Sprintf("Loading message %d…", id+1))
	r.more.Show()
}

func (r *turnRow) showMessage(id int, m view.MessageView) {
	t := r.t
	key := fmt.Sprintf("%d %s %v %d", id, m.ID, m.ID == t.Highlighted, t.version[id])
	if r.key == key {
		return
	}
	r.key, r.id = key, id
	r.more.Hide()
	r.msg.Show()
	r.bar.FillColor = roleColor(m.Role)
	r.bg.FillColor = roleBackground(m.Role)
	if m.ID == t.Highlighted {
		r.bg.FillColor = color.NRGBA{0xff, 0xc1, 0x07, 0x30}
	}
	r.role.TextStyle = fyne.TextStyle{Bold: true, Italic: m.Role != "user" && m.Role != "assistant"}
	r.role.SetText(fmt.Sprintf("%s  %s  #%d", strings.ToUpper(m.Role), clock(m.Timestamp), id+1))
	text := messageText(m)
	if strings.TrimSpace(text) == "" {
		r.body.Hide()
	} else {
		r.body.SetText(text)
		r.body.Show()
	}
	r.tools.Objects = r.tools.Objects[:0]
	for pi, ps := range m.PartsSummary {
		if ps.Kind == string(session.PartText) {
			continue
		}
		key := fmt.Sprintf("%s/%d", m.ID, pi)
		icon := theme.MenuExpandIcon()
		if t.open[key] {
			icon = theme.MenuDropDownIcon()
		}
		b := widget.NewButtonWithIcon(PartLabel(ps), icon, func() { t.Toggle(m.ID, pi) })
		b.Alignment = widget.ButtonAlignLeading
		b.Importance = widget.LowImportance
		r.tools.Add(b)
		if t.open[key] {
			d := widget.NewLabel(t.details[key])
			if d.Text == "" {
				d.SetText("Loading…")
			}
			d.Wrapping = fyne.TextWrapBreak
			d.TextStyle = fyne.TextStyle{Monospace: true}
			r.tools.Add(d)
		}
	}
	r.bar.Refresh()
	r.bg.Refresh()
	r.tools.Refresh()
}

// listWidth is the width rows are laid out at (the window's, before the list has a size).
func (t *Transcript) listWidth() float32 {
	w := t.List.Size().Width
	if w <= 0 {
		w = t.Win.Canvas().Size().Width
	}
	return w - theme.Padding()*2
}

// measure gives row id the height its message needs at the list's width (rows differ: a
// one-line answer, a long diff), measured on a row off screen. Never called from the list's
// own update of a row: a height set there would lay the list out again inside its layout.
func (t *Transcript) measure(id int) {
	m, ok := t.message(id)
	w := t.listWidth()
	if !ok || w <= 0 {
		return
	}
	if t.probe == nil {
		t.probe = t.newRow().(*turnRow)
	}
	t.probe.key = ""
	t.probe.showMessage(id, m)
	t.probe.msg.Resize(fyne.NewSize(w, t.probe.msg.MinSize().Height))
	h := t.probe.msg.MinSize().Height
	t.measuredAt[id] = w
	if t.heights[id] != h {
		t.heights[id] = h
		t.List.SetItemHeight(id, h)
	}
}

// widthWatch lays the list out over its whole space and, when its width changes (the window
// was resized, or laid out for the first time), measures the loaded rows again: outside the
// list's own layout, where setting a row's height is safe.
type widthWatch struct{ t *Transcript }

func (l widthWatch) MinSize(o []fyne.CanvasObject) fyne.Size { return o[0].MinSize() }

func (l widthWatch) Layout(o []fyne.CanvasObject, size fyne.Size) {
	o[0].Move(fyne.NewPos(0, 0))
	o[0].Resize(size)
	t := l.t
	if w := t.listWidth(); w > 0 && w != t.width {
		t.width = w
		for i := range t.msgs {
			if t.measuredAt[t.row(i)] != w {
				t.measure(t.row(i))
			}
		}
	}
}

// changed redraws and measures again the row of loaded message i.
func (t *Transcript) changed(i int) {
	id := t.row(i)
	t.version[id]++
	t.measure(id)
	t.List.RefreshItem(id)
}

// Toggle folds or unfolds part pi of message id; unfolding a tool call fetches its input and
// the result that answered it.
func (t *Transcript) Toggle(id string, pi int) {
	key := fmt.Sprintf("%s/%d", id, pi)
	t.open[key] = !t.open[key]
	i := t.indexOf(id)
	if i >= 0 {
		t.changed(i)
	}
	if !t.open[key] || t.details[key] != "" || i < 0 {
		return
	}
	ps := t.msgs[i].PartsSummary[pi]
	resultMsg := ""
	if ps.Kind == string(session.PartToolCall) && ps.CallID != "" {
		for _, m := range t.msgs[i:] {
			for _, q := range m.PartsSummary {
				if q.Kind == string(session.PartToolResult) && q.CallID == ps.CallID {
					resultMsg = m.ID
				}
			}
			if resultMsg != "" {
				break
			}
		}
	}
	var d, rd *view.MessageDetail
	var err error
	zero := 0
	ask(callTimeout, func(ctx context.Context) {
		d, err = t.API.GetMessage(ctx, &apitype.GetMessageRequest{GetMessageRequest: view.GetMessageRequest{ID: id, SessionID: t.Session, ContextBefore: &zero, ContextAfter: &zero}})
		if err == nil && resultMsg != "" && resultMsg != id {
			rd, _ = t.API.GetMessage(ctx, &apitype.GetMessageRequest{GetMessageRequest: view.GetMessageRequest{ID: resultMsg, SessionID: t.Session, ContextBefore: &zero, ContextAfter: &zero}})
		}
	}, func() {
		if err != nil {
			t.details[key] = "Could not load it: " + err.Error()
		} else {
			t.details[key] = PartDetail(d, rd, ps)
		}
		if i := t.indexOf(id); i >= 0 {
			t.changed(i)
		}
		if t.Done != nil {
			select {
			case t.Done <- struct{}{}:
			default:
			}
		}
	})
}

// Unfolded says whether part pi of message id is unfolded, and its text once fetched.
func (t *Transcript) Unfolded(id string, pi int) (bool, string) {
	key := fmt.Sprintf("%s/%d", id, pi)
	return t.open[key], t.details[key]
}

// PartLabel is a folded part's line.
func PartLabel(ps view.PartSummary) string {
	label := strings.ReplaceAll(ps.Kind, "_", " ")
	if ps.Label != "" {
		label += ": " + ps.Label
	}
	if ps.Failed != nil && *ps.Failed {
		label += " (failed)"
	}
	return label
}

// PartDetail is an unfolded part: a tool call's input and the result that answered it (from
// rd, the result's message, when it is another), or the part's own body.
func PartDetail(d, rd *view.MessageDetail, ps view.PartSummary) string {
	var b strings.Builder
	find := func(md *view.MessageDetail, kind session.PartType) *session.Part {
		if md == nil {
			return nil
		}
		for i := range md.TargetParts {
			p := &md.TargetParts[i]
			if p.Type == kind && (ps.CallID == "" || p.CallID == ps.CallID) {
				return p
			}
		}
		return nil
	}
	switch session.PartType(ps.Kind) {
	case session.PartToolCall:
		if p := find(d, session.PartToolCall); p != nil {
			fmt.Fprintf(&b, "%s(%s)", p.Name, clipBody(pretty(p.Params)))
		}
		res := find(rd, session.PartToolResult)
		if res == nil {
			res = find(d, session.PartToolResult)
		}
		if res != nil {
			status := "result"
			if res.IsFailure {
				status = "result (failed)"
			}
			fmt.Fprintf(&b, "\n── %s ──\n%s", status, clipBody(resultText(res)))
		} else {
			b.WriteString("\n── no result in the loaded messages ──")
		}
	case session.PartToolResult:
		if p := find(d, session.PartToolResult); p != nil {
			b.WriteString(clipBody(resultText(p)))
		}
	default:
		if d != nil {
			for _, p := range d.TargetParts {
				if string(p.Type) == ps.Kind {
					b.WriteString(clipBody(p.Text + p.FileName))
					break
				}
			}
		}
	}
	if b.Len() == 0 {
		return "(empty)"
	}
	return b.String()
}

func resultText(p *session.Part) string {
	if p.Text != "" {
		return p.Text
	}
	var s string
	if json.Unmarshal(p.Result, &s) == nil {
		return s
	}
	return pretty(p.Result)
}

func pretty(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(b)
}

// clipBody keeps an unfolded body to what a row can show; the whole is one copy away (pond
// get-message).
func clipBody(s string) string {
	const max = 4000
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n… %d more bytes (pond get-message shows all)", len(s)-cut)
}

func utf8Start(b byte) bool { return b&0xc0 != 0x80 }

// FindText searches this session for q (the daemon's full-text search, scoped to the session)
// and goes to the first hit.
func (t *Transcript) FindText(q string) {
	t.found = q
	q = strings.TrimSpace(q)
	t.hits, t.hitAt = nil, -1
	if q == "" {
		t.FindInfo.SetText("")
		return
	}
	var res *view.SearchResult
	var err error
	ask(callTimeout, func(ctx context.Context) {
		res, err = t.API.Search(ctx, &apitype.SearchRequest{SearchRequest: view.SearchRequest{Query: q, Mode: view.ModeFTS,
			Filters: view.SearchFilters{SessionID: t.Session}, Limit: 1}})
	}, func() {
		defer func() {
			if t.Done != nil {
				select {
				case t.Done <- struct{}{}:
				default:
				}
			}
		}()
		if err != nil {
			t.FindInfo.SetText("Find failed: " + err.Error())
			return
		}
		for _, s := range res.Sessions {
			for _, h := range s.Matches {
				if h.SessionID == t.Session || h.SessionID == "" {
					t.hits = append(t.hits, h)
				}
			}
		}
		slices.SortStableFunc(t.hits, func(a, b view.Hit) int { return strings.Compare(a.Timestamp, b.Timestamp) })
		if len(t.hits) == 0 {
			t.FindInfo.SetText("Not in this session")
			return
		}
		t.NextHit(1)
	})
}

// Hits are find's hits, in session order.
func (t *Transcript) Hits() []view.Hit { return t.hits }

// NextHit goes to the next (d=1) or previous (d=-1) hit: scrolled to when loaded, else the page
// at it is loaded.
func (t *Transcript) NextHit(d int) {
	if len(t.hits) == 0 {
		return
	}
	t.hitAt = (t.hitAt + d + len(t.hits)) % len(t.hits)
	h := t.hits[t.hitAt]
	t.FindInfo.SetText(fmt.Sprintf("%d of %d", t.hitAt+1, len(t.hits)))
	t.GoTo(h.MessageID)
}

// GoTo scrolls to message id, loading the page at it when it is not loaded.
func (t *Transcript) GoTo(id string) {
	old := t.Highlighted
	t.Highlighted = id
	if i := t.indexOf(old); i >= 0 {
		t.List.RefreshItem(t.row(i))
	}
	if i := t.indexOf(id); i >= 0 {
		t.List.RefreshItem(t.row(i))
		t.List.ScrollTo(t.row(i))
		return
	}
	t.OpenAt(id)
}

func roleColor(role string) color.Color {
	switch role {
	case "user":
		return color.NRGBA{0x1e, 0x88, 0xe5, 0xff}
	case "assistant":
		return color.NRGBA{0x43, 0xa0, 0x47, 0xff}
	}
	return color.NRGBA{0x9e, 0x9e, 0x9e, 0xff}
}

func roleBackground(role string) color.Color {
	switch role {
	case "user":
		return color.NRGBA{0x1e, 0x88, 0xe5, 0x18}
	case "assistant":
		return color.NRGBA{0x43, 0xa0, 0x47, 0x10}
	}
	return color.NRGBA{0x9e, 0x9e, 0x9e, 0x18}
}

func day(ts string) string {
	if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		return t.Local().Format("2006-01-02")
	}
	return ts
}

func clock(ts string) string {
	if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		return t.Local().Format("2006-01-02 15:04:05")
	}
	return ts
}
