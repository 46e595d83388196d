package tray

import (
	"context"
	"testing"
	"time"

	"github.com/pondhq/pond/daemon/daemontest"
	"github.com/pondhq/pond/ipc/apitype"
)

// TestFollowerRebuildsOnEvents: a change made through the API reaches the tray's menu through
// the event stream, coalesced into a status re-read.
func TestFollowerRebuildsOnEvents(t *testing.T) {
	srv := daemontest.Start(t, "../../adapters/claudecode/testdata/projects")
	states := make(chan State, 32)
	f := &Follower{API: srv.Client, Coalesce: 20 * time.Millisecond, Poll: time.Hour,
		OnChange: func(s State) { states <- s }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.Run(ctx)
	next := func(want func(Menu) bool, what string) {
		t.Helper()
		deadline := time.After(2 * time.Minute) // a bound on a hang
		for {
			select {
			case s := <-states:
				if want(Build(s)) {
					return
				}
			case <-deadline:
				t.Fatalf("the tray never showed %s in 2 minutes", what)
			}
		}
	}
	next(func(m Menu) bool { return m.Icon == IconPaused }, "consent needed")
	if _, err := srv.Client.SetConsent(ctx, &apitype.Consent{Capture: "granted"}); err != nil {
		t.Fatal(err)
	}
	next(func(m Menu) bool { return m.Icon == IconCapturing }, "capturing after consent")
	if _, err := srv.Client.Sync(ctx, &apitype.SyncRequest{}); err != nil {
		t.Fatal(err)
	}
	next(func(m Menu) bool {
		for _, it := range m.Items {
			if it.Label == "6 sessions, 39 messages" {
				return true
			}
		}
		return false
	}, "the synced counts")
}
