package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/present"
	"github.com/pondhq/pond/session/view"
)

// planShown is how many sessions the confirmation lists by name; the rest are counted.
const planShown = 8

// Erase is the erase dialog over a window: the daemon first lists what the request selects
// (a dry run), the dialog shows it and waits for the user's confirmation, then the daemon
// erases it for good, the dialog showing the steps from the watch stream, and at the end what
// went and what the disk got back. Nothing is erased without the confirming tap.
type Erase struct {
	API API
	Req view.EraseRequest
	// Plan says what would go (then what went); Step the step the erase is at.
	Plan    *widget.Label
	Step    *widget.Label
	Bar     *widget.ProgressBarInfinite
	Confirm *widget.Button
	Cancel  *widget.Button
	Dialog  *dialog.CustomDialog
	// OnErased runs once the daemon has erased (the search window looks again); OnClosed when
	// the dialog is closed after an erase (a transcript window of the session closes).
	OnErased func(*view.EraseReport)
	OnClosed func()

	ids      []string // the sessions the plan listed: what Confirm erases
	erased   bool
	finished bool // the erase answered: later steps are not shown
}

// NewErase builds the erase dialog over w for req without showing it or asking the daemon
// (Show does both); intro says why it is offered ("" for none).
func NewErase(api API, w fyne.Window, req view.EraseRequest, intro string) *Erase {
	e := &Erase{API: api, Req: req}
	e.Plan = widget.NewLabel("Looking up what would be erased…")
	e.Plan.Wrapping = fyne.TextWrapWord
	e.Step = widget.NewLabel("")
	e.Step.Wrapping = fyne.TextWrapWord
	e.Step.Hide()
	e.Bar = widget.NewProgressBarInfinite()
	e.Bar.Stop()
	e.Bar.Hide()
	e.Confirm = widget.NewButton("Erase for good", e.erase)
	e.Confirm.Importance = widget.DangerImportance
	e.Confirm.Disable()
	e.Cancel = widget.NewButton("Cancel", func() { e.Dialog.Hide() })
	var head []fyne.CanvasObject
	if intro != "" {
		l := widget.NewLabel(intro)
		l.Wrapping = fyne.TextWrapWord
		head = append(head, l)
	}
	body := container.NewVBox(append(head, e.Plan, e.Bar, e.Step)...)
	e.Dialog = dialog.NewCustomWithoutButtons("Erase from Pond", body, w)
	e.Dialog.SetButtons([]fyne.CanvasObject{e.Cancel, e.Confirm})
	e.Dialog.SetOnClosed(func() {
		if e.erased && e.OnClosed != nil {
			e.OnClosed()
		}
	})
	e.Dialog.Resize(fyne.NewSize(560, 0))
	return e
}

// Show shows the dialog and asks the daemon what the request selects.
func (e *Erase) Show() {
	e.Dialog.Show()
	e.Start()
}

// Start asks the daemon what the request selects and shows it.
func (e *Erase) Start() {
	plan := e.Req
	plan.DryRun = true
	var rep *view.EraseReport
	var err error
	ask(callTimeout, func(ctx context.Context) {
		rep, err = e.API.Erase(ctx, &apitype.EraseRequest{EraseRequest: plan})
	}, func() {
		switch {
		case err != nil:
			e.Plan.SetText("Could not ask the daemon what would be erased: " + err.Error())
			e.Cancel.SetText("Close")
		case len(rep.Sessions) == 0:
			e.Plan.SetText("Nothing to erase: the archive holds no session that matches.")
			e.Cancel.SetText("Close")
		default:
			e.ids = e.ids[:0]
			for _, s := range rep.Sessions {
				e.ids = append(e.ids, s.ID)
			}
			// Enabled before the plan shows: whoever sees the plan may confirm it at once.
			e.Confirm.Enable()
			e.Plan.SetText(PlanText(rep))
		}
		e.Dialog.Refresh()
	})
}

// erase erases what the plan listed, by id (what the user saw is what goes, even if a sync
// added a session matching the same project meanwhile), following the daemon's steps.
func (e *Erase) erase() {
	e.Confirm.Disable()
	e.Cancel.Disable()
	e.Bar.Show()
	e.Bar.Start()
	e.Step.SetText("Starting…")
	e.Step.Show()
	e.Dialog.Refresh() // the bar and the step's line take room: lay the dialog out again
	req := view.EraseRequest{Sessions: e.ids, Exports: e.Req.Exports}
	var rep *view.EraseReport
	var err error
	ask(eraseTimeout, func(ctx context.Context) {
		rep, err = followErase(ctx, e.API, req, func(step string) {
			do(func() {
				if e.finished {
					return // a late step: the outcome is shown
				}
				e.Step.SetText(step)
				e.Dialog.Refresh()
			})
		})
	}, func() {
		e.finished = true
		e.Bar.Stop()
		e.Bar.Hide()
		e.Cancel.SetText("Close")
		e.Cancel.Enable()
		var ro *ReadOnlyError
		if errors.As(err, &ro) {
			e.Step.SetText("The erase failed: nothing was erased. " + err.Error())
			e.Dialog.Refresh()
			return
		}
		if err != nil {
			e.Step.SetText("The erase failed: " + err.Error() + "\nThe sessions are on the erase list; erase them again (here or with pond erase) to finish.")
			e.Dialog.Refresh()
			return
		}
		e.erased = true
		e.Plan.SetText(ErasedText(rep))
		e.Step.Hide()
		e.Confirm.Hide()
		e.Dialog.Refresh()
		if e.OnErased != nil {
			e.OnErased(rep)
		}
	})
}

// followErase runs the erase while following the watch stream, telling step each step the
// daemon reports. The stream is open (its hello read) before the erase starts, so no step is
// missed; without a stream the erase runs all the same.
func followErase(ctx context.Context, api API, req view.EraseRequest, step func(string)) (*view.EraseReport, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	hello := make(chan struct{})
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		first := true
		api.Watch(wctx, "", func(ev apitype.Event) error {
			if first {
				first = false
				close(hello)
				return nil
			}
			if ev.Type != apitype.EventEraseProgress {
				return nil
			}
			if p, err := ev.Payload(); err == nil {
				if ep, ok := p.(*view.EraseProgress); ok {
					step(StepText(ep))
				}
			}
			return nil
		})
	}()
	select {
	case <-hello:
	case <-watching: // no stream: no progress
	case <-time.After(callTimeout):
	}
	return api.Erase(ctx, &apitype.EraseRequest{EraseRequest: req})
}

// StepText says an erase step in words.
func StepText(p *view.EraseProgress) string {
	var what string
	switch p.Step {
	case "delete":
		what = "Deleting the rows"
	case "rewrite":
		what = "Rewriting the data files that held them"
	case "index":
		what = "Rebuilding the search indexes without them"
	case "prune":
		what = "Removing old versions (each file overwritten first)"
	case "mirror":
		what = "Clearing the search mirror"
	case "exports":
		what = "Looking through exports"
	default:
		what = strings.ToUpper(p.Step[:min(1, len(p.Step))]) + p.Step[min(1, len(p.Step)):]
	}
	if p.Table != "" {
		what += " (" + present.Escape(p.Table) + ")"
	}
	return what + "…"
}

// PlanText is the confirmation's text: the sessions a dry run selected, what erasing means.
func PlanText(r *view.EraseReport) string {
	var b strings.Builder
	n := len(r.Sessions)
	if n == 1 {
		b.WriteString("Erase this session for good?\n")
	} else {
		fmt.Fprintf(&b, "Erase these %d sessions for good?\n", n)
	}
	for i, s := range r.Sessions {
		if i == planShown {
			fmt.Fprintf(&b, "\n… and %d more", n-planShown)
			break
		}
		sub := ""
		if s.Parent != "" {
			sub = ", a sub-agent's"
		}
		fmt.Fprintf(&b, "\n• %s · %s · %s · %s%s", present.Escape(s.Agent), present.Escape(s.Project),
			s.CreatedAt.Local().Format(time.DateOnly), count(s.Messages, "message"), sub)
	}
	its, them := "Their", "these sessions"
	if n == 1 {
		its, them = "Its", "it"
	}
	fmt.Fprintf(&b, "\n\n%s %s, tool calls and search vectors leave the archive, and their bytes leave the disk. "+
		"The agents' own files are not touched; Pond will not capture %s again (pond erase --lift ID undoes that).",
		its, count(r.Removed.Messages, "message"), them)
	for _, p := range r.Exports {
		fmt.Fprintf(&b, "\nThe export %s holds one of them: it stays (pond erase --exports removes it).", present.Escape(p))
	}
	return b.String()
}

// ErasedText says what an erase did.
func ErasedText(r *view.EraseReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Erased %s (%s).", count(r.Removed.Sessions, "session"), count(r.Removed.Messages, "message"))
	if r.BytesReclaimed > 0 {
		fmt.Fprintf(&b, "\nThe archive gave back %s of disk.", Bytes(r.BytesReclaimed))
	}
	for _, p := range r.Exports {
		if r.ExportsRemoved {
			fmt.Fprintf(&b, "\nRemoved the export %s.", present.Escape(p))
		} else {
			fmt.Fprintf(&b, "\nThe export %s still holds it (pond erase --exports removes it).", present.Escape(p))
		}
	}
	if r.Removed.Sessions == 1 {
		b.WriteString("\nA later sync will not capture it again.")
	} else {
		b.WriteString("\nA later sync will not capture them again.")
	}
	return b.String()
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Bytes says a size the way people read it.
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// EraseSession is a session window's "Erase this session…" button (the transcript's).
type EraseSession struct {
	Button *widget.Button
	// Open is the dialog the button last opened; OnClosed runs when it closes after an erase.
	Open     *Erase
	OnClosed func()
}

// NewEraseSession builds the button that erases session id from window w.
func NewEraseSession(api API, w fyne.Window, id string) *EraseSession {
	es := &EraseSession{}
	es.Button = widget.NewButton("Erase this session…", func() {
		es.Open = NewErase(api, w, view.EraseRequest{Sessions: []string{id}}, "")
		es.Open.OnClosed = es.OnClosed
		es.Open.Show()
	})
	return es
}
