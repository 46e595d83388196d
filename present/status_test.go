package present

import (
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/session/view"
)

// TestStatusLimits: pond status says which values the archive does not keep whole and which
// lines it skips, with the caps in binary units.
func TestStatusLimits(t *testing.T) {
	st := &view.Status{Limits: view.Limits{ValueBytes: 8 << 20, LineBytes: 64 << 20, DecompressedBytes: 1 << 30}}
	got := Status(st, "/data", false, false)
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
	got := Status(st, "/data", false, false)
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

// TestStatusListsHosts: several machines writing one archive are listed, each with its share,
// its name escaped (it comes from the archive), this one marked; one machine only on request.
func TestStatusListsHosts(t *testing.T) {
	st := &view.Status{Hosts: []view.Host{
		{Writer: 0, Hostname: "laptop", Username: "ana", LastCapture: "2026-12-01T10:00:00Z", Sessions: 3, Messages: 40, This: true},
		{Writer: 5121, Hostname: "ci\x1b[2J", Sessions: 1, Messages: 7},
	}}
	got := Status(st, "/data", false, false)
	for _, want := range []string{
		"machines: 2 writing this archive\n",
		"  ana@laptop                       writer 0           3 sessions        40 messages, last capture " +
			time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC).Local().Format(time.DateTime) + " (this machine)\n",
		`  ci\x1b[2J                        writer 5121        1 sessions         7 messages` + "\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("status:\n%s\nwant a line %q", got, want)
		}
	}
	st.Hosts = st.Hosts[:1]
	if strings.Contains(Status(st, "/data", false, false), "machines:") || !strings.Contains(Status(st, "/data", false, true), "machines: 1") {
		t.Error("one machine: listed without --hosts, or not with it")
	}
}

func TestStatusShowsAnArchiveOnObjectStorage(t *testing.T) {
	st := &view.Status{}
	if strings.Contains(Status(st, "/data", false, false), "disk cache") {
		t.Error("a local archive's status mentions a disk cache")
	}
	st.Storage = "s3://team/pond"
	st.DiskCache = &view.DiskCache{Dir: "/c/lance/ab", Files: 12, Bytes: 3 << 20, LimitBytes: 1 << 30, Hits: 90, Misses: 10}
	got := Status(st, "/data", false, false)
	for _, want := range []string{
		"archive: 0 sessions, 0 messages, 0 parts (s3://team/pond; its mirror in /data)\n",
		"disk cache: 3.0 MiB of 1 GiB in 12 files; 90 of 100 reads answered from it since the archive was opened (/c/lance/ab)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("status:\n%s\nwant a line %q", got, want)
		}
	}
}
