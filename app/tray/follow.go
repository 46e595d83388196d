package tray

import (
	"context"
	"time"

	"github.com/pondhq/pond/installer/service"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// Source is the part of ipc.Client the follower uses.
type Source interface {
	Status(ctx context.Context) (*view.Status, error)
	Watch(ctx context.Context, since string, fn func(apitype.Event) error) error
}

// Follower keeps a State current: it follows the daemon's event stream (resuming with the
// last event's cursor after a short back-off when the daemon goes away), re-reads the status
// after a burst of events (coalesced), and polls slowly so "last sync 5 min ago" and the login
// service's state stay true while nothing happens.
type Follower struct {
	API      Source
	Service  func(ctx context.Context) service.Status // nil: unknown
	Archive  string
	OnChange func(State) // called from the follower's goroutine, never concurrently
	Backoff  time.Duration
	Coalesce time.Duration
	Poll     time.Duration

	kick chan struct{}
}

// Kick asks for a status re-read soon (after a user's action).
func (f *Follower) Kick() {
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

// Run follows until ctx ends.
func (f *Follower) Run(ctx context.Context) {
	if f.Backoff == 0 {
		f.Backoff = 2 * time.Second
	}
	if f.Coalesce == 0 {
		f.Coalesce = 250 * time.Millisecond
	}
	if f.Poll == 0 {
		f.Poll = 30 * time.Second
	}
	if f.kick == nil {
		f.kick = make(chan struct{}, 1)
	}
	type evMsg struct {
		ev apitype.Event
	}
	events := make(chan evMsg, 64)
	down := make(chan error, 1)
	var cursor string
	watching := false
	startWatch := func() {
		watching = true
		since := cursor
		go func() {
			err := f.API.Watch(ctx, since, func(ev apitype.Event) error {
				select {
				case events <- evMsg{ev}:
				case <-ctx.Done():
					return ctx.Err()
				}
				return nil
			})
			select {
			case down <- err:
			case <-ctx.Done():
			}
		}()
	}

	var s State
	refresh := func() {
		st, err := f.API.Status(ctx)
		s.Status, s.StatusErr = st, ""
		if err != nil {
			s.StatusErr = err.Error()
			s.Syncing = false
		} else if st.Daemon != nil {
			s.Syncing = s.Syncing || st.Daemon.Syncing
		}
		if f.Service != nil {
			s.Service = f.Service(ctx)
		}
		s.Archive, s.Now = f.Archive, time.Now()
		if f.OnChange != nil && ctx.Err() == nil {
			f.OnChange(s)
		}
	}

	refresh()
	if s.Status != nil {
		startWatch()
	}
	poll := time.NewTicker(f.Poll)
	defer poll.Stop()
	retry := time.NewTimer(f.Backoff)
	defer retry.Stop()
	var coalesce <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case m := <-events:
			ev := m.ev
			if ev.Type != apitype.EventHello && ev.Type != apitype.EventSyncProgress {
				cursor = ev.Cursor()
			}
			switch ev.Type {
			case apitype.EventHello:
				if cursor == "" {
					cursor = ev.Cursor()
				}
			case apitype.EventSyncStarted:
				s.Syncing = true
			case apitype.EventSyncFinished:
				s.Syncing, s.LastFailed = false, ""
			case apitype.EventError:
				if p, err := ev.Payload(); err == nil {
					if fl, ok := p.(*view.Failed); ok {
						s.LastFailed = fl.During + ": " + fl.Error
					}
				}
			case apitype.EventSyncProgress:
				continue // live progress: not worth a status read
			}
			if coalesce == nil {
				coalesce = time.After(f.Coalesce)
			}
		case <-coalesce:
			coalesce = nil
			refresh()
		case <-f.kick:
			refresh()
			if !watching && s.Status != nil {
				startWatch()
			}
		case <-down:
			watching = false
			retry.Reset(f.Backoff)
			refresh()
		case <-retry.C:
			if !watching {
				refresh()
				if s.Status != nil {
					startWatch()
				} else {
					retry.Reset(f.Backoff)
				}
			}
		case <-poll.C:
			refresh()
		}
	}
}
