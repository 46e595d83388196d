package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/resume/terminal"
	"github.com/pondhq/pond/session/view"
)

// upkeepTimeout bounds a run of upkeep started from the window (embedding can take long; the
// daemon goes on with the step it is in when the window gives up).
const upkeepTimeout = 2 * time.Hour

// Settings is the settings window: the terminal restores open in (a custom command too), the
// search model, each agent's capture folder and program, where the archive is, and upkeep.
type Settings struct {
	API   API
	Win   fyne.Window
	Prefs Prefs

	// Terminal
	Terminal *widget.Select
	Template *widget.Entry
	TermInfo *widget.Label
	// Agents: capture folder (the daemon's) and program (the tray's), by agent.
	Paths    map[string]*widget.Entry
	Programs map[string]*widget.Entry
	Apply    map[string]*widget.Button
	agentBox *fyne.Container
	// Model
	Model       *widget.Label
	ModelToggle *widget.Button
	// Archive and upkeep
	Archive    *widget.Label
	Upkeep     *widget.Label
	CheckUp    *widget.Button
	RunUp      *widget.Button
	Status     *widget.Label
	model      *view.ModelStatus
	Tabs       *container.AppTabs
	configFile string
}

// NewSettings builds the window into w and loads what the daemon holds. archive is the
// archive's folder (shown).
func NewSettings(api API, w fyne.Window, prefs Prefs, archive string, getenv func(string) string) *Settings {
	s := &Settings{API: api, Win: w, Prefs: prefs, Paths: map[string]*widget.Entry{}, Programs: map[string]*widget.Entry{}, Apply: map[string]*widget.Button{}}
	s.Status = widget.NewLabel("")
	s.Status.Wrapping = fyne.TextWrapWord

	// Terminal: the tray's own preference, saved as it changes.
	choices := append(append([]string{TerminalAuto}, terminal.Names(getenv)...), TerminalCustom)
	choice, tmpl := prefs.TerminalChoice()
	s.Template = widget.NewEntry()
	s.Template.SetPlaceHolder("kitty --directory {dir} {cmd}")
	s.Template.SetText(tmpl)
	s.TermInfo = widget.NewLabel("")
	s.TermInfo.Wrapping = fyne.TextWrapWord
	s.Terminal = widget.NewSelect(choices, nil)
	s.Terminal.SetSelected(choice)
	s.Terminal.OnChanged = func(string) { s.saveTerminal() }
	s.Template.OnChanged = func(string) { s.saveTerminal() }
	s.terminalInfo()
	help := widget.NewLabel("Or your own command: {dir} is the session's folder, {cmd} the agent's command\n(added at the end when absent). No shell reads it.")
	term := container.NewVBox(widget.NewLabel("Resumed sessions open in:"), s.Terminal, help, s.Template, s.TermInfo)

	// Agents: filled from the daemon.
	s.agentBox = container.NewVBox(widget.NewLabel("Loading the agents…"))
	agents := container.NewVScroll(s.agentBox)

	// Model
	s.Model = widget.NewLabel("Loading…")
	s.ModelToggle = widget.NewButton("Turn semantic search on", s.toggleModel)
	s.ModelToggle.Disable()
	install := widget.NewLabel("Install a model with `pond model install`\n(it downloads a pinned model, or copies a folder).")
	model := container.NewVBox(s.Model, s.ModelToggle, install)

	// Archive and upkeep
	s.Archive = widget.NewLabel("Archive: " + archive)
	s.Archive.Wrapping = fyne.TextWrapBreak
	s.Upkeep = widget.NewLabel("The daemon runs upkeep (compaction, indexes, embedding, old versions) by itself when it is due.")
	s.Upkeep.Wrapping = fyne.TextWrapWord
	s.CheckUp = widget.NewButton("Check what is due", func() { s.upkeep(true) })
	s.RunUp = widget.NewButton("Run upkeep now", func() { s.upkeep(false) })
	store := container.NewVBox(s.Archive, widget.NewSeparator(), s.Upkeep, container.NewHBox(s.CheckUp, s.RunUp))

	s.Tabs = container.NewAppTabs(
		container.NewTabItem("Terminal", term),
		container.NewTabItem("Agents", agents),
		container.NewTabItem("Search model", model),
		container.NewTabItem("Archive", store),
	)
	w.SetContent(container.NewBorder(nil, s.Status, nil, nil, s.Tabs))
	w.Canvas().SetOnTypedKey(func(k *fyne.KeyEvent) {
		if k.Name == fyne.KeyEscape {
			w.Hide()
		}
	})
	s.Reload()
	return s
}

func (s *Settings) saveTerminal() {
	if s.Terminal.Selected == TerminalCustom {
		s.Template.Enable()
	} else {
		s.Template.Disable()
	}
	s.Prefs.SetTerminal(s.Terminal.Selected, s.Template.Text)
	s.terminalInfo()
}

func (s *Settings) terminalInfo() {
	if s.Terminal.Selected != TerminalCustom {
		s.Template.Disable()
		s.TermInfo.SetText("")
		return
	}
	s.Template.Enable()
	if strings.TrimSpace(s.Template.Text) == "" {
		s.TermInfo.SetText("Type the terminal's command; until then the first terminal found is used.")
		return
	}
	argv, err := terminal.Expand(s.Template.Text, "/path/of/session", []string{"claude", "--resume", "ID"})
	if err != nil {
		s.TermInfo.SetText(err.Error())
		return
	}
	s.TermInfo.SetText("Runs: " + strings.Join(quoteAll(argv), " "))
}

func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = terminal.Quote(w)
	}
	return out
}

// Reload asks the daemon for the agents and the model again.
func (s *Settings) Reload() {
	var ad *apitype.AdaptersResponse
	var ms *view.ModelStatus
	var aerr, merr error
	ask(callTimeout, func(ctx context.Context) {
		ad, aerr = s.API.Adapters(ctx)
		ms, merr = s.API.Model(ctx)
	}, func() {
		s.showAgents(ad, aerr)
		s.showModel(ms, merr)
	})
}

func (s *Settings) showAgents(ad *apitype.AdaptersResponse, err error) {
	s.agentBox.RemoveAll()
	if err != nil {
		s.agentBox.Add(widget.NewLabel("Could not ask the daemon: " + err.Error()))
		return
	}
	if ad.ConfigFile != "" {
		s.configFile = ad.ConfigFile
	}
	intro := widget.NewLabel("Where each agent keeps its sessions (empty: found by itself), and its program\nfor resume (empty: looked up on PATH, then on your login shell's PATH).")
	s.agentBox.Add(intro)
	for _, a := range ad.Adapters {
		name := a.Name
		path := widget.NewEntry()
		path.SetText(a.Path)
		switch {
		case len(a.Found) > 0:
			path.SetPlaceHolder(a.Found[0])
		default:
			path.SetPlaceHolder("not found on this machine")
		}
		apply := widget.NewButton("Apply", func() { s.applyPath(name) })
		s.Paths[name], s.Apply[name] = path, apply
		title := widget.NewLabel(name)
		title.TextStyle = fyne.TextStyle{Bold: true}
		rows := []fyne.CanvasObject{title, container.NewBorder(nil, nil, widget.NewLabel("Sessions in"), apply, path)}
		if a.Restore {
			prog := widget.NewEntry()
			prog.SetPlaceHolder("looked up when you resume")
			prog.SetText(s.Prefs.AgentProgram(name))
			prog.OnChanged = func(p string) { s.Prefs.SetAgentProgram(name, strings.TrimSpace(p)) }
			s.Programs[name] = prog
			rows = append(rows, container.NewBorder(nil, nil, widget.NewLabel("Program"), nil, prog))
		}
		s.agentBox.Add(container.NewVBox(rows...))
	}
}

// applyPath sets agent's capture folder (enabling it); empty goes back to discovery.
func (s *Settings) applyPath(agent string) {
	p := strings.TrimSpace(s.Paths[agent].Text)
	if p != "" {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() || !filepath.IsAbs(p) {
			s.Status.SetText(fmt.Sprintf("%s: %s is not a folder here (give its full path).", agent, p))
			return
		}
	}
	var ad *apitype.AdaptersResponse
	var err error
	ask(callTimeout, func(ctx context.Context) {
		ad, err = s.API.SetAdapters(ctx, &apitype.AdapterRequest{Action: "enable", Name: agent, Path: p})
	}, func() {
		if err != nil {
			s.Status.SetText(fmt.Sprintf("%s: not changed: %v", agent, err))
			s.Win.Content().Refresh()
			return
		}
		where := "the folder it had"
		if p != "" {
			where = p
		}
		s.Status.SetText(fmt.Sprintf("%s: capturing from %s (saved in %s).", agent, where, ad.ConfigFile))
	})
}

func (s *Settings) showModel(ms *view.ModelStatus, err error) {
	s.model = ms
	if err != nil {
		s.Model.SetText("Could not ask the daemon: " + err.Error())
		s.ModelToggle.Disable()
		return
	}
	s.Model.SetText(ModelText(ms))
	defer s.Win.Content().Refresh()
	switch {
	case ms.Enabled:
		s.ModelToggle.SetText("Turn semantic search off")
		s.ModelToggle.Enable()
	case len(ms.Installed) > 0:
		s.ModelToggle.SetText("Turn semantic search on")
		s.ModelToggle.Enable()
	default:
		s.ModelToggle.SetText("Turn semantic search on")
		s.ModelToggle.Disable()
	}
}

// ModelText says what the search model is.
func ModelText(ms *view.ModelStatus) string {
	var b strings.Builder
	switch {
	case ms.Enabled:
		fmt.Fprintf(&b, "Semantic search is on with %s.", ms.Model)
		if e := ms.Embedded; e != nil && e.Searchable > 0 {
			fmt.Fprintf(&b, "\n%d of %d messages embedded.", e.ThisModel, e.Searchable)
		}
	case len(ms.Installed) > 0:
		b.WriteString("Semantic search is off.")
	default:
		b.WriteString("Semantic search is off: no model is installed.\nFull-text search works without one.")
	}
	for _, m := range ms.Installed {
		fmt.Fprintf(&b, "\nInstalled: %s", m.ID)
	}
	return b.String()
}

func (s *Settings) toggleModel() {
	req := &apitype.ModelRequest{Action: "enable"}
	if s.model != nil && s.model.Enabled {
		req.Action = "disable"
	} else if s.model != nil && s.model.Model == "" && len(s.model.Installed) > 0 {
		req.Model = s.model.Installed[0].ID
	}
	s.ModelToggle.Disable()
	var ms *view.ModelStatus
	var err error
	ask(callTimeout, func(ctx context.Context) { ms, err = s.API.SetModel(ctx, req) }, func() {
		if err != nil {
			s.Status.SetText("Model: not changed: " + err.Error())
			s.ModelToggle.Enable()
			return
		}
		s.showModel(ms, nil)
		s.Status.SetText("Saved in " + ms.ConfigFile + ".")
	})
}

// upkeep asks the daemon what upkeep is due (dry) or runs it.
func (s *Settings) upkeep(dry bool) {
	s.CheckUp.Disable()
	s.RunUp.Disable()
	if !dry {
		s.Upkeep.SetText("Running upkeep… (the tray's icon shows its progress; this window can close)")
	}
	var res *apitype.OptimizeResponse
	var err error
	timeout := callTimeout
	if !dry {
		timeout = upkeepTimeout
	}
	ask(timeout, func(ctx context.Context) { res, err = s.API.Optimize(ctx, &apitype.OptimizeRequest{DryRun: dry}) }, func() {
		s.CheckUp.Enable()
		s.RunUp.Enable()
		if err != nil {
			s.Upkeep.SetText("Upkeep: " + err.Error())
			return
		}
		s.Upkeep.SetText(UpkeepText(res))
		s.Win.Content().Refresh() // the wrapped text's new height
	})
}

// UpkeepText says what upkeep found due, or what a run did.
func UpkeepText(res *apitype.OptimizeResponse) string {
	var b strings.Builder
	d := res.Diagnosis
	if res.Report != nil {
		fmt.Fprintf(&b, "Upkeep ran: %s.", joinSteps(res.Report.Ran))
		d = res.Report.After
	}
	if d == nil || len(d.Due) == 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("Nothing is due.")
		return b.String()
	}
	if b.Len() > 0 {
		b.WriteString("\nStill due:")
	} else {
		b.WriteString("Due:")
	}
	for _, due := range d.Due {
		fmt.Fprintf(&b, "\n• %s: %s", due.Step, due.Why)
	}
	return b.String()
}

func joinSteps(steps []view.Step) string {
	if len(steps) == 0 {
		return "nothing to do"
	}
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = string(s)
	}
	return strings.Join(out, ", ")
}
