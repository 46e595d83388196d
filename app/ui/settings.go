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
	"github.com/pondhq/pond/present"
	"github.com/pondhq/pond/resume/terminal"
	"github.com/pondhq/pond/session/view"
)

// upkeepTimeout bounds a run of upkeep started from the window (embedding can take long; the
// daemon goes on with the step it is in when the window gives up).
const upkeepTimeout = 2 * time.Hour

// Settings is the settings window: the terminal restores open in (a custom command too), the
// search model, each agent's capture folder and program, where the archive is, upkeep, and
// privacy (redaction at capture, the projects never captured).
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
	Archive *widget.Label
	Upkeep  *widget.Label
	CheckUp *widget.Button
	RunUp   *widget.Button
	Status  *widget.Label
	// Privacy: redaction and the excluded projects (Exclude adds ExcludeGlob's glob).
	Redact      *widget.Check
	RedactInfo  *widget.Label
	Excluded    []string
	excludeBox  *fyne.Container
	ExcludeGlob *widget.Entry
	Exclude     *widget.Button
	// Include takes an excluded glob off the list, by glob.
	Include map[string]*widget.Button
	// Erasing is the erase dialog offered for what an added glob already held (tests).
	Erasing    *Erase
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

	// Privacy
	s.RedactInfo = widget.NewLabel("")
	s.RedactInfo.Wrapping = fyne.TextWrapWord
	s.Redact = NewRedactCheck(api, func(msg string) { s.RedactInfo.SetText(msg) })
	s.excludeBox = container.NewVBox()
	s.Include = map[string]*widget.Button{}
	s.ExcludeGlob = widget.NewEntry()
	s.ExcludeGlob.SetPlaceHolder("~/work/client-x or ~/secret/*")
	s.ExcludeGlob.OnSubmitted = func(string) { s.exclude() }
	s.Exclude = widget.NewButton("Exclude", s.exclude)
	exclHelp := widget.NewLabel("Projects never captured: a folder (and those under it) or a glob. Their sessions are not read.")
	exclHelp.Wrapping = fyne.TextWrapWord
	privacy := container.NewVScroll(container.NewVBox(s.Redact, s.RedactInfo, widget.NewSeparator(), exclHelp, s.excludeBox,
		container.NewBorder(nil, nil, nil, s.Exclude, s.ExcludeGlob)))

	s.Tabs = container.NewAppTabs(
		container.NewTabItem("Terminal", term),
		container.NewTabItem("Agents", agents),
		container.NewTabItem("Search model", model),
		container.NewTabItem("Archive", store),
		container.NewTabItem("Privacy", privacy),
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

// Reload asks the daemon for the agents, the model and privacy again.
func (s *Settings) Reload() {
	var ad *apitype.AdaptersResponse
	var ms *view.ModelStatus
	var pv *apitype.Privacy
	var aerr, merr, perr error
	ask(callTimeout, func(ctx context.Context) {
		ad, aerr = s.API.Adapters(ctx)
		ms, merr = s.API.Model(ctx)
		pv, perr = s.API.Privacy(ctx)
	}, func() {
		s.showAgents(ad, aerr)
		s.showModel(ms, merr)
		s.showPrivacy(pv, perr)
	})
}

func (s *Settings) showPrivacy(p *apitype.Privacy, err error) {
	if err != nil {
		s.RedactInfo.SetText("Could not ask the daemon: " + err.Error())
		return
	}
	s.RedactInfo.SetText(RedactionText(p.Redaction))
	s.Excluded = p.ExcludeProjects
	s.excludeBox.RemoveAll()
	clear(s.Include)
	if len(p.ExcludeProjects) == 0 {
		s.excludeBox.Add(widget.NewLabel("No project is excluded."))
	}
	for _, g := range p.ExcludeProjects {
		b := widget.NewButton("Capture again", func() { s.include(g) })
		s.Include[g] = b
		l := widget.NewLabel(present.Escape(g))
		l.Truncation = fyne.TextTruncateEllipsis
		s.excludeBox.Add(container.NewBorder(nil, nil, nil, b, l))
	}
	s.Win.Content().Refresh()
	// Enabled last, as in the consent window: a change made at once keeps its own text.
	showRedact(s.Redact, p.Redaction.Enabled)
}

// exclude adds the glob typed; when the archive already holds sessions under it, it offers
// to erase them.
func (s *Settings) exclude() {
	g := strings.TrimSpace(s.ExcludeGlob.Text)
	if g == "" {
		s.Status.SetText("Type a project's folder or a glob to exclude.")
		return
	}
	s.setPrivacy(&apitype.PrivacyRequest{Exclude: g}, func(p *apitype.Privacy) {
		s.ExcludeGlob.SetText("")
		if p.Stored == nil || len(p.Stored.Sessions) == 0 {
			s.Status.SetText(fmt.Sprintf("%s is excluded: its sessions will not be captured; none is stored.", g))
			return
		}
		s.Status.SetText(fmt.Sprintf("%s is excluded: its sessions will not be captured.", g))
		ids := make([]string, len(p.Stored.Sessions))
		for i, x := range p.Stored.Sessions {
			ids[i] = x.ID
		}
		intro := fmt.Sprintf("The archive already holds %s under %s, captured before it was excluded.",
			count(len(ids), "session"), present.Escape(g))
		s.Erasing = NewErase(s.API, s.Win, view.EraseRequest{Sessions: ids}, intro)
		s.Erasing.Cancel.SetText("Keep them")
		s.Erasing.Show()
	})
}

// include takes glob off the excluded projects.
func (s *Settings) include(g string) {
	s.setPrivacy(&apitype.PrivacyRequest{Include: g}, func(*apitype.Privacy) {
		s.Status.SetText(fmt.Sprintf("%s is captured again from the next sync.", g))
	})
}

func (s *Settings) setPrivacy(req *apitype.PrivacyRequest, then func(*apitype.Privacy)) {
	s.Exclude.Disable()
	var p *apitype.Privacy
	var err error
	ask(callTimeout, func(ctx context.Context) { p, err = s.API.SetPrivacy(ctx, req) }, func() {
		s.Exclude.Enable()
		if err != nil {
			s.Status.SetText("Privacy: not changed: " + err.Error())
			return
		}
		s.showPrivacy(p, nil)
		then(p)
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
