package ui

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// Consent is the capture-consent window: what Pond would capture, from where, where it keeps
// it, and the Grant / Decline choice, recorded through the consent route.
type Consent struct {
	API     API
	Win     fyne.Window
	Agents  *widget.Label
	Current *widget.Label
	Grant   *widget.Button
	Decline *widget.Button
	// OnChange runs after the choice was recorded (the tray re-reads its state).
	OnChange func()
}

// NewConsent builds the consent window into w; archive is the folder the data lives in.
func NewConsent(api API, w fyne.Window, archive string) *Consent {
	c := &Consent{API: api, Win: w}
	title := widget.NewLabel("Let Pond keep your coding agents' sessions?")
	title.TextStyle = fyne.TextStyle{Bold: true}
	c.Agents = widget.NewLabel("Looking for agents…")
	c.Agents.Wrapping = fyne.TextWrapWord
	what := widget.NewLabel(strings.Join([]string{
		"Pond reads the session files your agents already write (prompts, answers, tool calls and their results) and keeps a searchable copy.",
		"Stored in: " + archive,
		"Nothing leaves this machine: no network, no account.",
		"Erase it any time: pond uninstall --purge, or delete that folder.",
	}, "\n\n"))
	what.Wrapping = fyne.TextWrapWord
	c.Current = widget.NewLabel("")
	c.Grant = widget.NewButton("Grant: capture my sessions", func() { c.set("granted") })
	c.Grant.Importance = widget.HighImportance
	c.Decline = widget.NewButton("Decline", func() { c.set("declined") })
	w.SetContent(container.NewBorder(title, container.NewVBox(c.Current, container.NewHBox(c.Grant, c.Decline)), nil, nil,
		container.NewVScroll(container.NewVBox(c.Agents, widget.NewSeparator(), what))))
	c.Reload()
	return c
}

// Reload reads the detected agents and the current choice.
func (c *Consent) Reload() {
	var ad *apitype.AdaptersResponse
	var cons *apitype.Consent
	var err, cerr error
	ask(callTimeout, func(ctx context.Context) {
		ad, err = c.API.Adapters(ctx)
		cons, cerr = c.API.Consent(ctx)
	}, func() {
		if err != nil {
			c.Agents.SetText("Could not ask the daemon which agents are here: " + err.Error())
		} else {
			c.Agents.SetText(DetectedText(ad.Adapters))
		}
		if cerr == nil {
			c.Current.SetText("Current choice: " + strings.ReplaceAll(cons.Capture, "_", " "))
		}
	})
}

func (c *Consent) set(capture string) {
	c.Grant.Disable()
	c.Decline.Disable()
	var res *apitype.Consent
	var err error
	ask(callTimeout, func(ctx context.Context) {
		res, err = c.API.SetConsent(ctx, &apitype.Consent{Capture: capture})
	}, func() {
		c.Grant.Enable()
		c.Decline.Enable()
		if err != nil {
			c.Current.SetText("Could not record the choice: " + err.Error())
		} else if res.Capture == "granted" {
			c.Current.SetText("Capture is on. The tray's Sync now captures at once.")
		} else {
			c.Current.SetText("Capture is off. Nothing is read; turn it on from the tray.")
		}
		if c.OnChange != nil {
			c.OnChange()
		}
	})
}

// DetectedText lists the agents found on this machine and where.
func DetectedText(ads []view.Adapter) string {
	var found, missing []string
	for _, a := range ads {
		if len(a.Found) > 0 || a.Path != "" {
			where := a.Path
			if where == "" {
				where = strings.Join(a.Found, ", ")
			}
			found = append(found, fmt.Sprintf("• %s — %s", a.Name, where))
		} else {
			missing = append(missing, a.Name)
		}
	}
	var b strings.Builder
	if len(found) == 0 {
		b.WriteString("No agent's sessions were found on this machine yet.")
	} else {
		b.WriteString("Agents found here:\n" + strings.Join(found, "\n"))
	}
	if len(missing) > 0 {
		b.WriteString("\nNot found: " + strings.Join(missing, ", "))
	}
	return b.String()
}
