package opencode

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pondhq/pond/adapters/adaptertest"
)

// TestSessionCreatedAtTheEpoch: a session whose creation time is 0 (a restore of a session that
// recorded no time at all writes one, and OpenCode imports it) is read at the epoch, not
// reported as having no creation time; one without the member still is.
func TestSessionCreatedAtTheEpoch(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      int // sessions read
	}{
		{"zero", `{"id":"ses_epoch","projectID":"global","directory":"/p","time":{"created":0,"updated":0}}`, 1},
		{"absent", `{"id":"ses_epoch","projectID":"global","directory":"/p","time":{}}`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, "storage", "session", "global", "ses_epoch.json")
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(tc.doc), 0o600); err != nil {
				t.Fatal(err)
			}
			var c adaptertest.Collector
			adaptertest.ReadRoot(t, New(), adaptertest.FakeEnv("linux", t.TempDir(), nil), root, nil, &c)
			var got int
			for _, e := range c.Events {
				if e.Session != nil {
					got++
					if !e.Session.CreatedAt.Equal(time.UnixMilli(0)) {
						t.Errorf("created %v, want the epoch", e.Session.CreatedAt)
					}
				}
			}
			if got != tc.want {
				t.Errorf("%d sessions read (bad: %v), want %d", got, c.Bad, tc.want)
			}
		})
	}
}
