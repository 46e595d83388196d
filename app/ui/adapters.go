package ui

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/present"
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
	var ad *apitype.AdaptersResponse
	var st *view.Status
	var err, serr error
	ask(callTimeout, func(ctx context.Context) {
		ad, err = a.API.Adapters(ctx)
		st, serr = a.API.Status(ctx)
	}, func() {
		if err != nil {
			a.Status.SetText("Could not read the adapters: " + err.Error())
			return
		}
		if serr != nil {
			st = nil
		}
		a.show(ad.Adapters, st)
	})
}

func (a *Adapters) show(ads []view.Adapter, st *view.Status) {
	a.Box.RemoveAll()
	counts := map[string]view.AgentCount{}
	health := map[string]view.AdapterHealth{}
	if st != nil {
		for _, c := range st.Agents {
			counts[c.Agent] = c
		}
		if st.LastSync != nil {
			for _, h := range st.LastSync.Health {
				health[h.Adapter] = h
			}
		}
	}
	// The switches are published last, once the window shows the whole answer: whoever waits
	// for them (a test, a keyboard shortcut) then meets no half-drawn window.
	checks := map[string]*widget.Check{}
	for _, ad := range ads {
		ad := ad
		name := widget.NewLabel(ad.Name)
		name.TextStyle = fyne.TextStyle{Bold: true}
		check := widget.NewCheck("Capture", nil)
		check.SetChecked(ad.Enabled)
		check.OnChanged = func(on bool) { a.set(ad.Name, on) }
		checks[ad.Name] = check
		where := ad.Path
		if where == "" {
			where = strings.Join(ad.Found, ", ")
		}
		if where == "" {
			where = "not found on this machine"
		}
		c := counts[ad.Name]
		text := fmt.Sprintf("Files: %s\nCaptured: %d sessions, %d messages", where, c.Sessions, c.Messages)
		if h, ok := health[ad.Name]; ok || ad.Enabled {
			text += "\n" + HealthText(h)
		}
		info := widget.NewLabel(text)
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
	a.Checks = checks
}

func (a *Adapters) set(name string, on bool) {
	action := "disable"
	if on {
		action = "enable"
	}
	var err error
	ask(callTimeout, func(ctx context.Context) {
		_, err = a.API.SetAdapters(ctx, &apitype.AdapterRequest{Action: action, Name: name})
	}, func() {
		if err != nil {
			a.Status.SetText(fmt.Sprintf("Could not %s %s: %v", action, name, err))
			return
		}
		if a.OnChange != nil {
			a.OnChange()
		}
		a.Reload()
	})
}

// HealthText says how an agent's capture is doing: when it last worked, what its changed files
// held that the adapter could not read (an agent update shows here first), or its error.
func HealthText(h view.AdapterHealth) string {
	var b strings.Builder
	switch {
	case h.Failing():
		fmt.Fprintf(&b, "Failing since %s: %s", day(h.FailingSince), h.Error)
		if h.LastOK != "" {
			fmt.Fprintf(&b, "\nLast worked %s", clock(h.LastOK))
		}
	case h.LastOK != "":
		fmt.Fprintf(&b, "Working; last capture %s", clock(h.LastOK))
	default:
		b.WriteString("Not captured yet")
	}
	if h.Malformed > 0 {
		fmt.Fprintf(&b, "\n%d malformed %s in its latest files", h.Malformed, present.Plural(h.Malformed, "record", "records"))
		if len(h.Problems) > 0 {
			p := h.Problems[0]
			fmt.Fprintf(&b, " (first: %s:%d: %s)", filepath.Base(p.Path), p.Line, p.Error)
		}
	}
	if len(h.Unknown) > 0 {
		kinds := slices.Sorted(maps.Keys(h.Unknown))
		fmt.Fprintf(&b, "\nKept but not read yet (the agent's format moved?): %s", strings.Join(kinds, ", "))
	}
	return b.String()
}
