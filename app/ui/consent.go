package ui

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/present"
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
	// Redact is the opt-in redaction switch: secrets replaced by markers as they are captured.
	Redact *widget.Check
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
		"Erase any time: a session from the search window or its transcript (Erase…), projects never to keep in Settings → Privacy, everything with pond uninstall --purge.",
	}, "\n\n"))
	what.Wrapping = fyne.TextWrapWord
	c.Current = widget.NewLabel("")
	c.Grant = widget.NewButton("Grant: capture my sessions", func() { c.set("granted") })
	c.Grant.Importance = widget.HighImportance
	c.Decline = widget.NewButton("Decline", func() { c.set("declined") })
	c.Redact = NewRedactCheck(api, func(msg string) { c.Current.SetText(msg) })
	w.SetContent(container.NewBorder(title, container.NewVBox(c.Redact, c.Current, container.NewHBox(c.Grant, c.Decline)), nil, nil,
		container.NewVScroll(container.NewVBox(c.Agents, widget.NewSeparator(), what))))
	c.Reload()
	return c
}

// Reload reads the detected agents and the current choice.
func (c *Consent) Reload() {
	var ad *apitype.AdaptersResponse
	var cons *apitype.Consent
	var priv *apitype.Privacy
	var err, cerr, perr error
	ask(callTimeout, func(ctx context.Context) {
		ad, err = c.API.Adapters(ctx)
		cons, cerr = c.API.Consent(ctx)
		priv, perr = c.API.Privacy(ctx)
	}, func() {
		if err != nil {
			c.Agents.SetText("Could not ask the daemon which agents are here: " + err.Error())
		} else {
			c.Agents.SetText(DetectedText(ad.Adapters))
		}
		if cerr == nil {
			c.Current.SetText("Current choice: " + strings.ReplaceAll(cons.Capture, "_", " "))
		}
		// The switch is enabled last: a change made at once must not have its outcome
		// overwritten by this reload's text.
		if perr == nil {
			showRedact(c.Redact, priv.Redaction.Enabled)
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

// redactLabel is the redaction switch's text, in the consent and settings windows alike.
const redactLabel = "Replace secrets (API keys, tokens, private keys) with [REDACTED:…] markers before storing"

// NewRedactCheck is the redaction switch: off until the daemon says otherwise, each change
// saved through the privacy route; said tells the outcome (or why it was not saved).
func NewRedactCheck(api API, said func(string)) *widget.Check {
	var c *widget.Check
	c = widget.NewCheck(redactLabel, func(on bool) {
		if c.Disabled() {
			return
		}
		c.Disable()
		var p *apitype.Privacy
		var err error
		ask(callTimeout, func(ctx context.Context) {
			p, err = api.SetPrivacy(ctx, &apitype.PrivacyRequest{Redact: &on})
		}, func() {
			c.Enable()
			if err != nil {
				showRedact(c, !on)
				said("Redaction not changed: " + err.Error())
				return
			}
			showRedact(c, p.Redaction.Enabled)
			said(RedactionText(p.Redaction))
		})
	})
	c.Disable() // until the daemon said what it is
	return c
}

// showRedact sets the switch without saving it again.
func showRedact(c *widget.Check, on bool) {
	c.Disable()
	c.SetChecked(on)
	c.Enable()
}

// RedactionText says whether redaction is on and what it replaced.
func RedactionText(r view.Redaction) string {
	if !r.Enabled {
		if r.Total > 0 {
			return fmt.Sprintf("Redaction is off: new sessions are stored as the agents wrote them (%s replaced while it was on stay replaced).", count(r.Total, "secret"))
		}
		return "Redaction is off: sessions are stored as the agents wrote them."
	}
	var b strings.Builder
	b.WriteString("Redaction is on for new captures (pond redact --all applies it to what is stored).")
	if r.Total > 0 {
		rules := make([]string, 0, len(r.Rules))
		for id := range r.Rules {
			rules = append(rules, id)
		}
		slices.SortFunc(rules, func(a, b string) int { return cmp.Or(cmp.Compare(r.Rules[b], r.Rules[a]), cmp.Compare(a, b)) })
		for i, id := range rules {
			rules[i] = fmt.Sprintf("%s %d", present.Escape(id), r.Rules[id])
		}
		fmt.Fprintf(&b, "\n%s replaced so far: %s.", count(r.Total, "secret"), strings.Join(rules, ", "))
	}
	return b.String()
}
