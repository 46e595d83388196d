// Package tray is the tray's model: a pure function from what is known about the daemon to the
// icon, tooltip and menu the tray shows. It imports no GUI toolkit, so every state is a table
// test; app/desktop turns a Menu into Fyne's tray calls.
package tray

import (
	"fmt"
	"strings"
	"time"

	"github.com/pondhq/pond/installer/service"
	"github.com/pondhq/pond/session/view"
)

// Icon names one of the tray's icons (icons.go draws them).
type Icon string

// The tray's icons, one per state.
const (
	IconCapturing Icon = "capturing"
	IconPaused    Icon = "paused"   // consent not asked yet, or capture paused
	IconDeclined  Icon = "declined" // the user said no to capture
	IconStopped   Icon = "stopped"  // no daemon answers
	IconFailing   Icon = "failing"  // the daemon or an adapter reports errors
	IconBackfill  Icon = "backfill" // embeddings being computed
	IconSyncing   Icon = "syncing"  // a sync is running
)

// Action is what a menu item does when clicked; app/desktop maps each to a call.
type Action string

// The menu's actions.
const (
	ActSearch      Action = "search"
	ActConsent     Action = "consent" // open the consent window
	ActPause       Action = "pause"   // consent → declined
	ActResume      Action = "resume"  // consent → granted
	ActSync        Action = "sync"
	ActAdapters    Action = "adapters"
	ActOpenArchive Action = "open-archive"
	ActStartDaemon Action = "start-daemon"
	ActSettings    Action = "settings"
	ActAbout       Action = "about"
	ActQuit        Action = "quit"
)

// State is what the tray knows: the daemon's last status (nil when it did not answer), the
// login service's status, and what the event stream said since.
type State struct {
	Status     *view.Status
	StatusErr  string         // why the last status call failed
	Service    service.Status // State "" when unknown
	Syncing    bool           // a sync_started without its sync_finished
	LastFailed string         // the last error event's text, cleared by a good sync
	Archive    string         // the archive folder (Dirs.Data)
	Connecting bool           // nothing asked yet: the tray has just started
	Now        time.Time      // for "last sync 5 min ago"
}

// Item is one menu line. A separator has only Separator set; a status line has no Action and
// is Disabled.
type Item struct {
	Label     string
	Action    Action
	Disabled  bool
	Separator bool
}

// Menu is what the tray shows.
type Menu struct {
	Icon    Icon
	Tooltip string
	Items   []Item
}

// failing names the agents whose last sync failed, from the health the daemon keeps.
func failing(st *view.Status) []string {
	if st.LastSync == nil {
		return nil
	}
	var out []string
	for _, h := range st.LastSync.Health {
		if h.Failing() {
			out = append(out, h.Adapter)
		}
	}
	return out
}

// Build is the tray for s.
func Build(s State) Menu {
	m := Menu{}
	st := s.Status
	expected := s.Service.State == service.Installed || s.Service.State == service.Running || s.Service.State == service.Stale
	switch {
	case st == nil && s.Connecting:
		m.Icon, m.Tooltip = IconStopped, "Pond: connecting to the daemon…"
	case st == nil && expected:
		m.Icon, m.Tooltip = IconFailing, "Pond: the daemon is not answering, though its login service is installed"
	case st == nil:
		m.Icon, m.Tooltip = IconStopped, "Pond: the daemon is not running"
	case st.Consent == "declined":
		m.Icon, m.Tooltip = IconDeclined, "Pond: capture is off (you declined)"
	case st.Consent != "granted":
		m.Icon, m.Tooltip = IconPaused, "Pond: capture needs your consent"
	case daemonError(s) != "":
		m.Icon, m.Tooltip = IconFailing, "Pond: "+daemonError(s)
	case len(failing(st)) > 0:
		m.Icon, m.Tooltip = IconFailing, "Pond: capture failing for "+strings.Join(failing(st), ", ")
	case st.LastSync != nil && st.LastSync.Outcome == "partial":
		m.Icon, m.Tooltip = IconFailing, "Pond: an adapter's capture is failing"
	case s.Syncing || (st.Daemon != nil && st.Daemon.Syncing):
		m.Icon, m.Tooltip = IconSyncing, "Pond: syncing"
	case st.Embeddings.Enabled && st.Embeddings.Pending > 0:
		m.Icon, m.Tooltip = IconBackfill, fmt.Sprintf("Pond: capturing; embedding %d messages", st.Embeddings.Pending)
	default:
		m.Icon, m.Tooltip = IconCapturing, "Pond: capturing"
	}

	add := func(it ...Item) { m.Items = append(m.Items, it...) }
	sep := Item{Separator: true}
	line := func(f string, a ...any) Item { return Item{Label: fmt.Sprintf(f, a...), Disabled: true} }

	if st == nil {
		add(Item{Label: "Search…", Action: ActSearch, Disabled: true})
		if s.Connecting {
			add(line("Connecting to the daemon…"), sep, Item{Label: "Quit tray", Action: ActQuit})
			return m
		}
		if expected {
			add(line("Daemon not answering (login service %s)", s.Service.State))
		} else {
			add(line("Daemon stopped"))
		}
		if s.StatusErr != "" {
			add(line("%s", short(s.StatusErr, 60)))
		}
		add(Item{Label: "Start daemon", Action: ActStartDaemon})
		add(sep, Item{Label: "Open archive folder", Action: ActOpenArchive, Disabled: s.Archive == ""})
		add(Item{Label: "Settings…", Action: ActSettings})
		add(sep, Item{Label: "About Pond", Action: ActAbout}, Item{Label: "Quit tray", Action: ActQuit})
		return m
	}

	add(Item{Label: "Search…", Action: ActSearch})
	switch st.Consent {
	case "granted":
		add(Item{Label: "Pause capture", Action: ActPause})
	case "declined":
		add(Item{Label: "Turn capture on…", Action: ActConsent})
	default:
		add(Item{Label: "Review capture consent…", Action: ActConsent})
	}
	add(Item{Label: "Sync now", Action: ActSync, Disabled: st.Consent != "granted" || s.Syncing})
	add(Item{Label: "Adapters…", Action: ActAdapters})
	add(sep)
	add(line("%s sessions, %s messages", count(st.Sessions), count(st.Messages)))
	add(line("%s", lastSync(st.LastSync, s.Now)))
	if st.Embeddings.Enabled {
		total := st.Embeddings.Embedded + st.Embeddings.Pending
		pct := 100
		if total > 0 {
			pct = int(st.Embeddings.Embedded * 100 / total)
		}
		add(line("Semantic search: %d%% embedded", pct))
	} else {
		add(line("Semantic search off (no model)"))
	}
	if e := daemonError(s); e != "" {
		add(line("Error: %s", short(e, 60)))
	}
	add(sep, Item{Label: "Open archive folder", Action: ActOpenArchive, Disabled: s.Archive == ""})
	add(Item{Label: "Settings…", Action: ActSettings})
	add(sep, Item{Label: "About Pond", Action: ActAbout}, Item{Label: "Quit tray", Action: ActQuit})
	return m
}

func daemonError(s State) string {
	if s.Status != nil && s.Status.Daemon != nil && s.Status.Daemon.LastError != "" {
		return s.Status.Daemon.LastError
	}
	if s.Status != nil && s.Status.LastSync != nil && s.Status.LastSync.Outcome == "failed" {
		if s.Status.LastSync.Error != "" {
			return "last sync failed: " + s.Status.LastSync.Error
		}
		return "last sync failed"
	}
	return s.LastFailed
}

func lastSync(ls *view.LastSync, now time.Time) string {
	if ls == nil {
		return "Never synced"
	}
	t, err := time.Parse(time.RFC3339Nano, ls.FinishedAt)
	if err != nil || now.IsZero() {
		return "Last sync: " + ls.Outcome
	}
	return fmt.Sprintf("Last sync %s (%s)", ago(now.Sub(t)), ls.Outcome)
}

func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}

func count(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
