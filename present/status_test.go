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
