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

// Launcher opens a restore's commands in a terminal: each command's program found through
// Resolver (the user's override, this app's PATH, the login shell's), in the terminal the
// preferences choose, with the login shell's PATH for the agent.
type Launcher struct {
	Resolver *terminal.Resolver
	Prefs    Prefs
	// Open opens the terminal (terminal.OpenWith when nil; tests record instead).
	Open func(o terminal.Options, argv [][]string, dir string, getenv func(string) string) (string, error)
}

// NewLauncher is the launcher over p, with a resolver that reads p's agent programs.
func NewLauncher(p Prefs) *Launcher {
	return &Launcher{Prefs: p, Resolver: &terminal.Resolver{Override: p.AgentProgram}}
}

// Resolve replaces each command's program by the path it was found at; a program found
// nowhere is a *terminal.LookError (errors.Is terminal.ErrNotInstalled).
func (l *Launcher) Resolve(agent string, argv [][]string) ([][]string, error) {
	out := make([][]string, len(argv))
	for i, a := range argv {
		if len(a) == 0 {
			return nil, errors.New("resume: an empty command")
		}
		p, err := l.Resolver.Look(agent, a[0])
		if err != nil {
			return nil, err
		}
		out[i] = append([]string{p}, a[1:]...)
	}
	return out, nil
}

// Launch opens argv (agent's commands) in dir and says which terminal it used.
func (l *Launcher) Launch(agent string, argv [][]string, dir string) (string, error) {
	resolved, err := l.Resolve(agent, argv)
	if err != nil {
		return "", err
	}
	opts := l.Prefs.Terminal()
	opts.Env = l.Resolver.Env(os.Environ())
	open := l.Open
	if open == nil {
		open = terminal.OpenWith
	}
	return open(opts, resolved, dir, os.Getenv)
}

// Resume restores session into agent through the API in the background and calls done with
// the outcome (a refusal is an outcome too) or the failure.
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
		fmt.Fprintf(&b, "Already restored: %s has this session from an earlier resume, and Pond does not overwrite it. Open the existing copy:", o.To)
	case view.ResumeCwdMissing:
		fmt.Fprintf(&b, "The working directory is gone: %s. %s resumes a session only from its folder. Create the folder and retry, or resume in another agent.", o.Cwd, o.To)
	case view.ResumeNotStored:
		b.WriteString("This session is not in the archive.")
	default:
		fmt.Fprintf(&b, "Not restored (%s): %s", o.Status, o.Message)
	}
	return b.String()
}

// Outcome is a restore's outcome as the window shows it: what happened, the command, and what
// can be done (open in a terminal, copy, create the missing folder and retry).
type Outcome struct {
	Text    *widget.Label
	Command *widget.Entry
	Open    *widget.Button
	Copy    *widget.Button
	Create  *widget.Button // shown when the working directory is gone
	Status  *widget.Label
	Box     *fyne.Container
}

// NewOutcome builds the view of o (or of the failure err). fallback is the command to copy
// when the daemon gave none; retry restores again (after Create made the folder).
func NewOutcome(l *Launcher, fallback string, o *view.ResumeOutcome, err error, copyText func(string), retry func()) *Outcome {
	v := &Outcome{}
	cmd := fallback
	var msg string
	switch {
	case err != nil:
		msg = "Resume failed: " + err.Error()
		var ro *ReadOnlyError
		if errors.As(err, &ro) {
			msg = "Resume is off: " + ro.Reason
		}
	default:
		msg = OutcomeText(o)
		if o.Command != "" {
			cmd = o.Command
		}
	}
	runnable := err == nil && (o.Status == view.ResumeOK || o.Status == view.ResumeTargetExists) && len(o.Argv) > 0
	if runnable {
		if _, lerr := l.Resolve(o.To, o.Argv); lerr != nil {
			msg += "\n" + lerr.Error() + "."
			runnable = false
		}
	}
	v.Text = widget.NewLabel(msg)
	v.Text.Wrapping = fyne.TextWrapWord
	v.Command = widget.NewEntry()
	v.Command.SetText(cmd)
	v.Status = widget.NewLabel("")
	v.Copy = widget.NewButton("Copy command", func() {
		copyText(cmd)
		v.Status.SetText("Copied.")
	})
	openLabel := "Open in terminal"
	if err == nil && o.Status == view.ResumeTargetExists {
		openLabel = "Open the existing copy"
	}
	v.Open = widget.NewButton(openLabel, func() {
		name, err := l.Launch(o.To, o.Argv, o.Cwd)
		switch {
		case errors.Is(err, terminal.ErrNoTerminal):
			v.Status.SetText("No terminal found here (" + err.Error() + "): copy the command instead, or choose a terminal in Settings.")
		case err != nil:
			v.Status.SetText("Could not open a terminal: " + err.Error())
		default:
			v.Status.SetText("Opened in " + name + ".")
		}
	})
	if !runnable {
		v.Open.Disable() // nothing to run here: the command is offered to copy
	}
	v.Create = widget.NewButton("Create the folder and retry", func() {
		if err := os.MkdirAll(o.Cwd, 0o755); err != nil {
			v.Status.SetText("Could not create it: " + err.Error())
			return
		}
		v.Status.SetText("Created " + o.Cwd + "; restoring again…")
		if retry != nil {
			retry()
		}
	})
	if err != nil || o.Status != view.ResumeCwdMissing || o.Cwd == "" {
		v.Create.Hide()
	}
	v.Box = container.NewVBox(v.Text, widget.NewLabel("Run it in a terminal:"), v.Command, container.NewHBox(v.Open, v.Copy, v.Create), v.Status)
	return v
}

// ShowOutcome shows a restore's outcome in a dialog over w.
func ShowOutcome(w fyne.Window, l *Launcher, fallback string, o *view.ResumeOutcome, err error, copyText func(string), retry func()) *Outcome {
	v := NewOutcome(l, fallback, o, err, copyText, retry)
	d := dialog.NewCustom("Resume", "Close", v.Box, w)
	d.Resize(fyne.NewSize(600, 280))
	d.Show()
	v.Box.Refresh() // the wrapped text's height at the dialog's width
	return v
}

// ResumeBar is a session's resume actions: "Resume in <agent>" (its own agent) and "Resume in…"
// (any agent Pond restores into, from the daemon's list). resume is called with the target.
type ResumeBar struct {
	Native *widget.Button
	Other  *widget.Select
	Box    *fyne.Container
}

// NewResumeBar builds the bar for a session of agent; the targets load in the background.
func NewResumeBar(api API, agent string, resume func(to string)) *ResumeBar {
	b := &ResumeBar{}
	b.Native = widget.NewButton("Resume", func() { resume(b.native(agent)) })
	b.Other = widget.NewSelect(nil, nil)
	b.Other.PlaceHolder = "Resume in…"
	b.Other.OnChanged = func(to string) {
		if to == "" {
			return
		}
		b.Other.ClearSelected()
		resume(to)
	}
	b.SetAgent(agent)
	b.Box = container.NewHBox(b.Native, b.Other)
	var ad *apitype.AdaptersResponse
	var err error
	ask(callTimeout, func(ctx context.Context) { ad, err = api.Adapters(ctx) }, func() {
		if err != nil {
			return
		}
		var targets []string
		for _, a := range ad.Adapters {
			if a.Restore {
				targets = append(targets, a.Name)
			}
		}
		b.Other.SetOptions(targets)
	})
	return b
}

// SetAgent names the session's agent on the native button ("" while unknown).
func (b *ResumeBar) SetAgent(agent string) {
	if agent == "" {
		b.Native.SetText("Resume")
		return
	}
	b.Native.SetText("Resume in " + b.native(agent))
}

// native is the agent a session of agent resumes in: its family ("claude-code/subagent" →
// "claude-code").
func (b *ResumeBar) native(agent string) string {
	name, _, _ := strings.Cut(agent, "/")
	return name
}
