package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// Adapters is the window of every known agent: where its files are, whether capture is on
// for it, what was captured and how the last sync went.
type Adapters struct {
	API      API
	Win      fyne.Window
	Box      *fyne.Container
	Status   *widget.Label
	Checks   map[string]*widget.Check
	Done     chan struct{}
	OnChange func()
}

// NewAdapters builds the adapters window into w.
func NewAdapters(api API, w fyne.Window) *Adapters {
	a := &Adapters{API: api, Win: w, Box: container.NewVBox(), Status: widget.NewLabel("Loading…"), Checks: map[string]*widget.Check{}}
	a.Status.Wrapping = fyne.TextWrapWord
	title := widget.NewLabel("Agents Pond captures from")
	title.TextStyle = fyne.TextStyle{Bold: true}
	w.SetContent(container.NewBorder(title, a.Status, nil, nil, container.NewVScroll(a.Box)))
	a.Reload()
	return a
}

// Reload re-reads the adapters and the status.
func (a *Adapters) Reload() {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ad, err := a.API.Adapters(ctx)
		st, serr := a.API.Status(ctx)
		fyne.Do(func() {
			if err != nil {
				a.Status.SetText("Could not read the adapters: " + err.Error())
				a.done()
				return
			}
			if serr != nil {
				st = nil
			}
			a.show(ad.Adapters, st)
			a.done()
		})
	}()
}

func (a *Adapters) done() {
	if a.Done != nil {
		select {
		case a.Done <- struct{}{}:
		default:
		}
	}
}

func (a *Adapters) show(ads []view.Adapter, st *view.Status) {
	a.Box.RemoveAll()
	counts := map[string]view.AgentCount{}
	if st != nil {
		for _, c := range st.Agents {
			counts[c.Agent] = c
		}
	}
	for _, ad := range ads {
		ad := ad
		name := widget.NewLabel(ad.Name)
		name.TextStyle = fyne.TextStyle{Bold: true}
		check := widget.NewCheck("Capture", nil)
		check.SetChecked(ad.Enabled)
		check.OnChanged = func(on bool) { a.set(ad.Name, on) }
		a.Checks[ad.Name] = check
		where := ad.Path
		if where == "" {
			where = strings.Join(ad.Found, ", ")
		}
		if where == "" {
			where = "not found on this machine"
		}
		c := counts[ad.Name]
		info := widget.NewLabel(fmt.Sprintf("Files: %s\nCaptured: %d sessions, %d messages", where, c.Sessions, c.Messages))
		info.Wrapping = fyne.TextWrapWord
		a.Box.Add(container.NewBorder(nil, nil, nil, check, container.NewVBox(name, info)))
		a.Box.Add(widget.NewSeparator())
	}
	if st != nil && st.LastSync != nil {
		ls := st.LastSync
		txt := fmt.Sprintf("Last sync %s: %s, %d sessions and %d messages new", day(ls.FinishedAt), ls.Outcome, ls.SessionsInserted, ls.MessagesInserted)
		if ls.Error != "" {
			txt += "\nError: " + ls.Error
		}
		a.Status.SetText(txt)
	} else {
		a.Status.SetText("Not synced yet.")
	}
}

func (a *Adapters) set(name string, on bool) {
	action := "disable"
	if on {
		action = "enable"
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := a.API.SetAdapters(ctx, &apitype.AdapterRequest{Action: action, Name: name})
		fyne.Do(func() {
			if err != nil {
				a.Status.SetText(fmt.Sprintf("Could not %s %s: %v", action, name, err))
				a.done()
				return
			}
			if a.OnChange != nil {
				a.OnChange()
			}
			a.Reload()
		})
	}()
}
