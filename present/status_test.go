package present

import (
	"strings"
	"testing"

	"github.com/pondhq/pond/session/view"
)

// TestStatusLimits: pond status says which values the archive does not keep whole and which
// lines it skips, with the caps in binary units.
func TestStatusLimits(t *testing.T) {
	st := &view.Status{Limits: view.Limits{ValueBytes: 8 << 20, LineBytes: 64 << 20, DecompressedBytes: 1 << 30}}
	got := Status(st, "/data", false)
	want := "limits: a value over 8 MiB is stored as a size marker; a line over 64 MiB, or a compressed file's content past 1 GiB, is reported as malformed\n"
	if !strings.Contains(got, want) {
		t.Errorf("status:\n%s\nwant a line %q", got, want)
	}
	for n, want := range map[int64]string{8 << 20: "8 MiB", 1 << 30: "1 GiB", 1536: "1536 bytes", 4096: "4 KiB"} {
		if got := bytesText(n); got != want {
			t.Errorf("bytesText(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestStatusListsAgents: pond status names every agent Pond knows, with its state in the config,
// whether its data is on this machine and whether Pond restores into it, archive or not.
func TestStatusListsAgents(t *testing.T) {
	st := &view.Status{Adapters: []view.Adapter{
		{Name: "claude-code", Configured: true, Enabled: true, Found: []string{"/home/u/.claude"}, Restore: true},
		{Name: "hermes", Configured: true, Restore: true},
		{Name: "cursor", Path: "/data/cursor"},
	}}
	got := Status(st, "/data", false)
	for _, want := range []string{
		"agents: 3 known\n",
		"  claude-code              enabled         data found          restores\n",
		"  hermes                   disabled        no data found here  restores\n",
		"  cursor                   not configured  data found          capture only\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("status:\n%s\nwant a line %q", got, want)
		}
	}
}
