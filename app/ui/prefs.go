package ui

import (
	"fyne.io/fyne/v2"

	"github.com/pondhq/pond/resume/terminal"
)

// Prefs are the tray's own settings, kept in Fyne's preferences for the app's id: the terminal
// and the agents' programs. What the daemon owns (capture paths, the model, upkeep) goes through
// the API instead. A nil P reads as the defaults.
type Prefs struct{ P fyne.Preferences }

// Preference keys.
const (
	PrefTerminal = "terminal.name"     // "" picks the first terminal found
	PrefTemplate = "terminal.template" // the user's own terminal command (terminal.Options)
	prefProgram  = "agent.program."    // + agent name: the path of its program
)

// TerminalAuto and TerminalCustom are the terminal choices besides a terminal's name.
const (
	TerminalAuto   = "Automatic (first found)"
	TerminalCustom = "Custom command…"
)

func (p Prefs) str(k string) string {
	if p.P == nil {
		return ""
	}
	return p.P.String(k)
}

func (p Prefs) set(k, v string) {
	if p.P != nil {
		p.P.SetString(k, v)
	}
}

// Terminal is the terminal to open restores in.
func (p Prefs) Terminal() terminal.Options {
	switch name := p.str(PrefTerminal); name {
	case "", TerminalAuto:
		return terminal.Options{}
	case TerminalCustom:
		return terminal.Options{Template: p.str(PrefTemplate)}
	default:
		return terminal.Options{Name: name}
	}
}

// TerminalChoice is the terminal setting as the settings window shows it.
func (p Prefs) TerminalChoice() (choice, template string) {
	choice = p.str(PrefTerminal)
	if choice == "" {
		choice = TerminalAuto
	}
	return choice, p.str(PrefTemplate)
}

// SetTerminal records the terminal setting.
func (p Prefs) SetTerminal(choice, template string) {
	if choice == TerminalAuto {
		choice = ""
	}
	p.set(PrefTerminal, choice)
	p.set(PrefTemplate, template)
}

// AgentProgram is the path the user set for agent's program, or "".
func (p Prefs) AgentProgram(agent string) string { return p.str(prefProgram + agent) }

// SetAgentProgram records it ("" goes back to looking it up).
func (p Prefs) SetAgentProgram(agent, path string) { p.set(prefProgram+agent, path) }
