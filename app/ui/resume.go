package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/resume/terminal"
	"github.com/pondhq/pond/session/view"
)

// Launch opens a restore's commands (argv, run in dir) in a terminal (terminal.Open); tests
// replace it.
var Launch = func(argv [][]string, dir string) (string, error) { return terminal.Open(argv, dir, os.Getenv) }

// Resume restores session (of agent) into agent through the API in the background and
// calls done with the outcome (a refusal is an outcome too) or the failure.
func Resume(api API, session, agent string, done func(*view.ResumeOutcome, error)) {
	var o *view.ResumeOutcome
	var err error
	ask(resumeTimeout, func(ctx context.Context) {
		o, err = api.Resume(ctx, &apitype.ResumeRequest{Session: session, To: agent})
		if err != nil {
			if ro, ok := apitype.RefusedRestore(err); ok {
				o, err = ro, nil
			}
		}
	}, func() { done(o, err) })
}

// OutcomeText says what a restore did and what to do next.
func OutcomeText(o *view.ResumeOutcome) string {
	var b strings.Builder
	switch o.Status {
	case view.ResumeOK:
		fmt.Fprintf(&b, "Restored into %s", o.To)
		if o.Native {
			b.WriteString(" (its own records, replayed)")
		}
		b.WriteString(".")
		if o.Cwd != "" {
			fmt.Fprintf(&b, "\nWorking directory: %s", o.Cwd)
		}
	case view.ResumeTargetExists:
		b.WriteString("Already restored: the agent has this session. Resume it with the command below.")
	case view.ResumeCwdMissing:
		b.WriteString("Not restored: " + o.Message)
	case view.ResumeNotStored:
		b.WriteString("This session is not in the archive.")
	default:
		fmt.Fprintf(&b, "Not restored (%s): %s", o.Status, o.Message)
	}
	return b.String()
}

// ShowOutcome shows a restore's outcome in a dialog over w, with its command and a copy button.
func ShowOutcome(w fyne.Window, fallback string, o *view.ResumeOutcome, err error, copyText func(string)) {
	cmd := fallback
	msg := ""
	switch {
	case err != nil:
		msg = "Resume failed: " + err.Error()
	default:
		msg = OutcomeText(o)
		if o.Command != "" {
			cmd = o.Command
		}
	}
	text := widget.NewLabel(msg)
	text.Wrapping = fyne.TextWrapWord
	cmdEntry := widget.NewEntry()
	cmdEntry.SetText(cmd)
	status := widget.NewLabel("")
	cp := widget.NewButton("Copy command", func() {
		copyText(cmd)
		status.SetText("Copied.")
	})
	run := widget.NewButton("Open in terminal", func() {
		name, err := Launch(o.Argv, o.Cwd)
		switch {
		case errors.Is(err, terminal.ErrNoTerminal):
			status.SetText("No terminal found here: copy the command instead.")
		case err != nil:
			status.SetText("Could not open a terminal: " + err.Error())
		default:
			status.SetText("Opened in " + name + ".")
		}
	})
	if err != nil || (o.Status != view.ResumeOK && o.Status != view.ResumeTargetExists) || cmd == fallback {
		run.Disable() // nothing restored to run: the command is offered to copy
	}
	content := container.NewVBox(text, widget.NewLabel("Run it in a terminal:"), cmdEntry, container.NewHBox(run, cp, status))
	d := dialog.NewCustom("Resume", "Close", content, w)
	d.Resize(fyne.NewSize(560, 260))
	d.Show()
}
