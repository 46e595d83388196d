// Package desktop is `pond tray`: one Fyne app that owns the tray (through desktop.App, which
// wraps fyne.io/systray) and opens the windows of app/ui on demand. It follows the daemon with
// app/tray's Follower and rebuilds the tray's menu from tray.Build on every change.
package desktop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	fdesktop "fyne.io/fyne/v2/driver/desktop"
	"fyne.io/systray"

	"github.com/pondhq/pond/app/tray"
	"github.com/pondhq/pond/app/ui"
	"github.com/pondhq/pond/installer/service"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/session/view"
)

// AppID is the Fyne application id (preferences, the tray's D-Bus Id).
const AppID = "io.pond.tray"

// Options are what `pond tray` passes in.
type Options struct {
	Dirs    paths.Dirs
	Exe     string // the pond binary, to spawn `pond daemon`
	Version string
	Open    string // a window to open at start: search, transcript, resume, erase, consent, adapters, settings, privacy (hidden flag)
	Query   string // typed into the search window at start (hidden flag, for screenshots)
	Log     *slog.Logger
}

// ErrRunning means another tray holds this user's lock.
var ErrRunning = errors.New("a Pond tray is already running in this session")

// Run runs the tray until the user quits it. The daemon keeps running.
func Run(ctx context.Context, o Options) error {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	unlock, err := lock(filepath.Join(o.Dirs.Runtime.Path, "tray.lock"))
	if err != nil {
		return err
	}
	defer unlock()

	client := ipc.NewClient(ipc.APISocket(o.Dirs.Runtime.Path))
	defer client.Close()
	a := app.NewWithID(AppID)
	a.SetIcon(fyne.NewStaticResource("pond.png", tray.AppIcon()))
	prefs := ui.Prefs{P: a.Preferences()}
	d := &desk{o: o, app: a, api: client, guard: ui.NewGuard(client), prefs: prefs, launcher: ui.NewLauncher(prefs)}
	if o.Exe != "" {
		d.svc, _ = service.New(service.Options{Exe: o.Exe, Dirs: o.Dirs})
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	d.follow = &tray.Follower{
		API:     client,
		Archive: o.Dirs.Data.Path,
		Service: d.serviceStatus,
		OnChange: func(s tray.State) {
			fyne.Do(func() { d.apply(s) })
		},
	}
	// Fyne v2.7.1 starts the systray only if the tray's menu is set before Run (the driver's
	// run loop calls trayStart once); later calls re-add the items to the running tray.
	d.apply(tray.State{Connecting: true})
	// Ask the login shell for its PATH now, once, so that a resume's outcome finds the agents
	// without waiting for the shell on the UI goroutine.
	go d.launcher.Resolver.LoginPATH()
	a.Lifecycle().SetOnStarted(func() {
		go d.follow.Run(ctx)
		switch o.Open {
		case "search", "transcript", "resume", "erase":
			d.openSearch()
			if o.Query != "" {
				d.search.Entry.SetText(o.Query)
			}
			if o.Open != "search" {
				go func() {
					time.Sleep(2 * time.Second) // the debounced search has answered
					switch o.Open {
					case "transcript":
						fyne.Do(d.search.OpenSelected)
					case "erase":
						fyne.Do(d.search.EraseSelected)
					default:
						fyne.Do(d.search.ResumeSelected)
					}
				}()
			}
		case "consent":
			d.openConsent()
		case "adapters":
			d.openAdapters()
		case "settings", "privacy":
			d.openSettings()
			if o.Open == "privacy" {
				d.settings.Tabs.SelectIndex(len(d.settings.Tabs.Items) - 1)
			}
		}
	})
	a.Run()
	return nil
}

type desk struct {
	o     Options
	app   fyne.App
	api   *ipc.Client
	guard *ui.Guard // the windows' API: read-only once the daemon answers forbidden
	prefs ui.Prefs
	svc   *service.Manager
	// launcher opens restores in the user's terminal, agents found through the login shell.
	launcher *ui.Launcher
	// connected is whether the daemon answered the last status call; a change from false to
	// true after the first answer is the daemon back (restarted): the windows reload.
	connected, answered bool
	follow              *tray.Follower

	state    tray.State
	menu     *fyne.Menu
	shown    tray.Menu // what menu holds now
	icon     tray.Icon
	asked    bool // consent window shown once for not_asked
	search   *ui.Search
	searchW  fyne.Window
	consentW fyne.Window
	consent  *ui.Consent
	adaptW   fyne.Window
	adapters *ui.Adapters
	setW     fyne.Window
	settings *ui.Settings
	// transcripts are the open transcript windows by session (closed when it is erased).
	transcripts map[string][]fyne.Window
}

func (d *desk) serviceStatus(ctx context.Context) service.Status {
	if d.svc == nil {
		return service.Status{}
	}
	st, err := d.svc.Status(ctx)
	if err != nil {
		return service.Status{}
	}
	return st
}

// apply shows s: the icon, the tooltip and the menu. Fyne v2.7.1's SetSystemTrayMenu resets
// the systray's items and re-adds them from the menu given, so one *fyne.Menu is kept and
// handed over again after its items change.
func (d *desk) apply(s tray.State) {
	d.state = s
	if !s.Connecting {
		up := s.Status != nil
		if up && !d.connected && d.answered {
			d.reconnected()
		}
		d.connected, d.answered = up, true
	}
	m := tray.Build(s)
	da, ok := d.app.(fdesktop.App)
	if !ok {
		return
	}
	if d.search != nil && s.Status != nil {
		d.search.SetSemantic(semanticReason(s.Status))
	}
	if s.Status != nil && s.Status.Consent == "not_asked" && !d.asked {
		d.asked = true
		d.openConsent()
	}
	if d.menu != nil && reflect.DeepEqual(m, d.shown) {
		return // unchanged: re-adding the items would renumber them under an open menu
	}
	d.shown = m
	items := make([]*fyne.MenuItem, 0, len(m.Items))
	for _, it := range m.Items {
		if it.Separator {
			items = append(items, fyne.NewMenuItemSeparator())
			continue
		}
		act := it.Action
		mi := fyne.NewMenuItem(it.Label, func() { d.do(act) })
		mi.Disabled = it.Disabled || it.Action == ""
		if act == tray.ActQuit {
			mi.IsQuit = true
		}
		items = append(items, mi)
	}
	if d.menu == nil {
		d.menu = fyne.NewMenu("Pond", items...)
	} else {
		d.menu.Items = items
	}
	da.SetSystemTrayMenu(d.menu)
	if m.Icon != d.icon {
		da.SetSystemTrayIcon(fyne.NewStaticResource("pond-"+string(m.Icon)+".png", tray.PNG(m.Icon)))
		d.icon = m.Icon
	}
	systray.SetTooltip(m.Tooltip) // the same systray Fyne drives: no second owner
}

func semanticReason(st *view.Status) string {
	if st.Embeddings.Enabled {
		return ""
	}
	return "Semantic and hybrid search need the embedding model: run `pond model install`."
}

func (d *desk) do(act tray.Action) {
	switch act {
	case tray.ActSearch:
		d.openSearch()
	case tray.ActConsent:
		d.openConsent()
	case tray.ActAdapters:
		d.openAdapters()
	case tray.ActPause, tray.ActResume:
		capture := "declined"
		if act == tray.ActResume {
			capture = "granted"
		}
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := d.api.SetConsent(ctx, &apitype.Consent{Capture: capture}); err != nil {
				d.o.Log.Warn("tray: set consent", "err", err)
			}
			d.follow.Kick()
		}()
	case tray.ActSync:
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			if _, err := d.api.Sync(ctx, &apitype.SyncRequest{NoWait: true}); err != nil {
				d.o.Log.Warn("tray: sync", "err", err)
			}
			d.follow.Kick()
		}()
	case tray.ActOpenArchive:
		open(d.o.Dirs.Data.Path)
	case tray.ActStartDaemon:
		go func() {
			if err := d.startDaemon(); err != nil {
				d.o.Log.Warn("tray: start daemon", "err", err)
			}
			time.Sleep(time.Second)
			d.follow.Kick()
		}()
	case tray.ActSettings:
		d.openSettings()
	case tray.ActAbout:
		d.about()
	case tray.ActQuit:
		d.app.Quit()
	}
}

// startDaemon starts the login service when one is installed, else spawns `pond daemon`.
func (d *desk) startDaemon() error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if d.svc != nil {
		if st, err := d.svc.Status(ctx); err == nil && st.State != service.NotInstalled {
			return d.svc.Start(ctx)
		}
	}
	if d.o.Exe == "" {
		return errors.New("desktop: no pond binary to start the daemon with")
	}
	logDir := filepath.Join(d.o.Dirs.State.Path, "logs")
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(logDir, "daemon.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command(d.o.Exe, "daemon")
	cmd.Stdout, cmd.Stderr = f, f
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("desktop: start pond daemon: %w", err)
	}
	go cmd.Wait()
	return nil
}

func (d *desk) window(title string, w, h float32) fyne.Window {
	win := d.app.NewWindow(title)
	win.Resize(fyne.NewSize(w, h))
	win.SetCloseIntercept(win.Hide)
	return win
}

// banner puts the read-only line above what the window shows.
func (d *desk) banner(w fyne.Window) {
	w.SetContent(container.NewBorder(d.guard.Banner(), nil, nil, nil, w.Content()))
}

// reconnected is the daemon answering again after it stopped: a restarted daemon may allow
// what it refused, and the windows show what it holds now.
func (d *desk) reconnected() {
	d.o.Log.Info("tray: the daemon is back; reloading the windows")
	d.api.Close() // connections to the daemon that stopped
	d.guard.Reset()
	if d.search != nil {
		d.search.Refresh()
	}
	if d.adapters != nil {
		d.adapters.Reload()
	}
	if d.consent != nil {
		d.consent.Reload()
	}
	if d.settings != nil {
		d.settings.Reload()
	}
}

func (d *desk) openSettings() {
	if d.setW == nil {
		d.setW = d.window("Pond — Settings", 680, 520)
		d.settings = ui.NewSettings(d.guard, d.setW, d.prefs, d.o.Dirs.Data.Path, os.Getenv)
		d.banner(d.setW)
	} else {
		d.settings.Reload()
	}
	d.setW.Show()
}

func (d *desk) openSearch() {
	if d.searchW == nil {
		d.searchW = d.window("Pond — Search", 820, 560)
		d.search = ui.NewSearch(d.guard, d.searchW)
		d.banner(d.searchW)
		d.search.OnOpen = d.openTranscript
		d.search.OnResume = func(h view.SessionHits) { d.resume(d.searchW, h.SessionID, h.SourceAgent) }
		d.search.OnResumeIn = func(h view.SessionHits, to string) { d.resume(d.searchW, h.SessionID, to) }
		d.search.OnErased = d.closeTranscripts
		if d.state.Status != nil {
			d.search.SetSemantic(semanticReason(d.state.Status))
		}
	}
	d.searchW.Show()
	d.searchW.RequestFocus()
	d.search.Focus()
}

// openTranscript opens h's session at its best hit (at its start when there is none).
func (d *desk) openTranscript(h view.SessionHits) {
	w := d.app.NewWindow("Pond — " + h.SourceAgent)
	w.Resize(fyne.NewSize(760, 640))
	bar := ui.NewResumeBar(d.guard, h.SourceAgent, func(to string) { d.resume(w, h.SessionID, to) })
	erase := ui.NewEraseSession(d.guard, w, h.SessionID)
	erase.OnClosed = func() { d.closeTranscripts(h.SessionID) }
	t := ui.BuildTranscript(d.guard, w, h.SessionID, container.NewHBox(bar.Box, erase.Button))
	d.banner(w)
	if d.transcripts == nil {
		d.transcripts = map[string][]fyne.Window{}
	}
	d.transcripts[h.SessionID] = append(d.transcripts[h.SessionID], w)
	w.SetOnClosed(func() {
		d.transcripts[h.SessionID] = slices.DeleteFunc(d.transcripts[h.SessionID], func(x fyne.Window) bool { return x == w })
	})
	if at := ui.OwnHit(h); at != "" {
		t.OpenAt(at)
	} else {
		t.Load()
	}
	w.Show()
}

// closeTranscripts closes the transcript windows of session id (it was erased).
func (d *desk) closeTranscripts(id string) {
	for _, w := range slices.Clone(d.transcripts[id]) {
		w.Close()
	}
}

// resume restores session id into the agent to and shows the outcome over w.
func (d *desk) resume(w fyne.Window, id, to string) {
	fallback := ui.ResumeCommand(view.SessionHits{SessionID: id, SourceAgent: to})
	ui.Resume(d.guard, id, to, func(o *view.ResumeOutcome, err error) {
		ui.ShowOutcome(w, d.launcher, fallback, o, err, d.app.Clipboard().SetContent, func() { d.resume(w, id, to) })
	})
}

func (d *desk) openConsent() {
	if d.consentW == nil {
		d.consentW = d.window("Pond — Capture consent", 620, 480)
		d.consent = ui.NewConsent(d.guard, d.consentW, d.o.Dirs.Data.Path)
		d.banner(d.consentW)
		d.consent.OnChange = d.follow.Kick
	} else {
		d.consent.Reload()
	}
	d.consentW.Show()
}

func (d *desk) openAdapters() {
	if d.adaptW == nil {
		d.adaptW = d.window("Pond — Adapters", 680, 520)
		d.adapters = ui.NewAdapters(d.guard, d.adaptW)
		d.banner(d.adaptW)
		d.adapters.OnChange = d.follow.Kick
	} else {
		d.adapters.Reload()
	}
	d.adaptW.Show()
}

func (d *desk) about() {
	w := d.window("About Pond", 420, 200)
	ver := d.o.Version
	if d.state.Status != nil {
		ver += " (daemon " + d.state.Status.Version + ")"
	}
	w.Show()
	dialog.ShowInformation("About Pond", "Pond "+ver+"\nA local archive and recall layer for AI coding agents.\nArchive: "+d.o.Dirs.Data.Path, w)
}

// open shows a folder in the platform's file manager.
func open(path string) {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", path)
	case "windows":
		cmd = exec.Command("explorer", path)
	default:
		cmd = exec.Command("xdg-open", path)
	}
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}
