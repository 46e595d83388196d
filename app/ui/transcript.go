package ui

import (
	"context"
	"fmt"
	"image/color"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// PageSize is how many messages one get-session call brings.
const PageSize = 50

// Transcript is a session's window: its messages, a page at a time, user, assistant and tool
// turns styled apart, tool calls collapsed and expandable.
type Transcript struct {
	API     API
	Win     fyne.Window
	Session string
	Header  *widget.Label
	Box     *fyne.Container
	Scroll  *container.Scroll
	More    *widget.Button
	Status  *widget.Label

	last  string // the last message id shown: the next page starts after it
	Done  chan struct{}
	Shown int
}

// NewTranscript builds the window for session id into w and loads its first page.
func NewTranscript(api API, w fyne.Window, id string, onResume func()) *Transcript {
	t := BuildTranscript(api, w, id, onResume)
	t.Load()
	return t
}

// BuildTranscript builds the window without loading anything yet.
func BuildTranscript(api API, w fyne.Window, id string, onResume func()) *Transcript {
	t := &Transcript{API: api, Win: w, Session: id}
	t.Header = widget.NewLabel("Loading " + id + "…")
	t.Header.TextStyle = fyne.TextStyle{Bold: true}
	t.Header.Truncation = fyne.TextTruncateEllipsis
	t.Box = container.NewVBox()
	t.Scroll = container.NewVScroll(t.Box)
	t.More = widget.NewButton("Load more", t.Load)
	t.More.Hide()
	t.Status = widget.NewLabel("")
	resume := widget.NewButton("Resume", onResume)
	w.SetContent(container.NewBorder(
		container.NewBorder(nil, nil, nil, resume, t.Header), t.Status, nil, nil,
		container.NewBorder(nil, t.More, nil, nil, t.Scroll)))
	w.Canvas().SetOnTypedKey(func(k *fyne.KeyEvent) {
		if k.Name == fyne.KeyEscape {
			w.Close()
		}
	})
	return t
}

// Load fetches the next page in the background.
func (t *Transcript) Load() {
	after := t.last
	t.More.Disable()
	var p *view.SessionPage
	var err error
	ask(callTimeout, func(ctx context.Context) {
		req := &apitype.GetSessionRequest{GetSessionRequest: view.GetSessionRequest{ID: t.Session, Limit: PageSize, AfterMessageID: after}}
		p, err = t.API.GetSession(ctx, req)
	}, func() { t.apply(p, err) })
}

func (t *Transcript) apply(p *view.SessionPage, err error) {
	defer func() {
		if t.Done != nil {
			select {
			case t.Done <- struct{}{}:
			default:
			}
		}
	}()
	t.More.Enable()
	if err != nil {
		t.Status.SetText("Could not load the session: " + err.Error())
		return
	}
	si := p.Session
	t.Header.SetText(fmt.Sprintf("%s · %s · %s · %d messages", si.SourceAgent, si.Project, day(si.CreatedAt), si.Messages))
	t.Win.SetTitle("Pond — " + si.SourceAgent + " · " + si.Project)
	for _, m := range p.Messages {
		t.Box.Add(Turn(m))
		t.last = m.ID
	}
	t.Shown += len(p.Messages)
	if p.AfterRemaining > 0 {
		t.More.SetText(fmt.Sprintf("Load %d more (%d left)", min(PageSize, p.AfterRemaining), p.AfterRemaining))
		t.More.Show()
	} else {
		t.More.Hide()
	}
	t.Status.SetText(fmt.Sprintf("%d of %d messages shown", t.Shown, si.Messages))
}

// Turn is one message: a coloured bar for its role, its text, and its tool calls folded.
func Turn(m view.MessageView) fyne.CanvasObject {
	role := widget.NewLabel(strings.ToUpper(m.Role) + "  " + clock(m.Timestamp))
	role.TextStyle = fyne.TextStyle{Bold: true, Italic: m.Role != "user" && m.Role != "assistant"}
	text := m.Text
	if text == "" {
		text = m.Content
	}
	body := widget.NewLabel(text)
	body.Wrapping = fyne.TextWrapWord
	parts := container.NewVBox(role)
	if strings.TrimSpace(text) != "" {
		parts.Add(body)
	}
	var tools []*widget.AccordionItem
	for _, ps := range m.PartsSummary {
		if ps.Kind == "text" {
			continue
		}
		label := ps.Kind
		if ps.Label != "" {
			label += ": " + ps.Label
		}
		if ps.Failed != nil && *ps.Failed {
			label += " (failed)"
		}
		detail := widget.NewLabel(fmt.Sprintf("%s\ncall %s", label, ps.CallID))
		detail.Wrapping = fyne.TextWrapWord
		tools = append(tools, widget.NewAccordionItem(label, detail))
	}
	if len(tools) > 0 {
		parts.Add(widget.NewAccordion(tools...))
	}
	bar := canvas.NewRectangle(roleColor(m.Role))
	bar.SetMinSize(fyne.NewSize(4, 4))
	bg := canvas.NewRectangle(roleBackground(m.Role))
	return container.NewStack(bg, container.NewBorder(nil, nil, bar, nil, parts))
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
