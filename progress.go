package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// Progress lines drawn on a terminal (stderr) from the events of the daemon or of this
// process.

// syncProgress draws a sync's progress, an adapter at a time.
func syncProgress(w io.Writer) func(apitype.Event) {
	last := time.Time{}
	return func(ev apitype.Event) {
		if ev.Type != apitype.EventSyncProgress {
			return
		}
		p, err := ev.Payload()
		if err != nil {
			return
		}
		sp := p.(*view.SyncProgress)
		if time.Since(last) > 100*time.Millisecond || sp.Done == sp.Total {
			last = time.Now()
			fmt.Fprintf(w, "\r%-16s %d/%d sources", sp.Adapter, sp.Done, sp.Total)
			if sp.Done == sp.Total {
				fmt.Fprintln(w)
			}
		}
	}
}

// upkeepProgress draws the daemon's (or this process's) upkeep events on stderr.
func upkeepProgress(w io.Writer) func(apitype.Event) {
	start := time.Now()
	inLine := false
	return func(ev apitype.Event) {
		if ev.Type != apitype.EventUpkeepProgress {
			return
		}
		pl, err := ev.Payload()
		if err != nil {
			return
		}
		p := pl.(*view.UpkeepProgress)
		if p.Step == view.StepEmbed && p.Total > 0 {
			rate := float64(p.Done) / max(time.Since(start).Seconds(), 0.001)
			eta := time.Duration(float64(p.Total-p.Done)/max(rate, 0.001)) * time.Second
			fmt.Fprintf(w, "\rembedding %d/%d messages, %.1f/s, about %s left   ", p.Done, p.Total, rate, eta.Round(time.Second))
			inLine = true
			return
		}
		if inLine {
			fmt.Fprintln(w)
			inLine = false
		}
		if p.Table != "" {
			fmt.Fprintf(w, "%s: %s\n", p.Step, p.Table)
		}
	}
}

// downloadProgress draws one line per file on a terminal.
func downloadProgress() func(string, int64, int64) {
	if !isTerminal(os.Stderr) {
		return nil
	}
	start := time.Now()
	return func(name string, done, total int64) {
		mb := func(n int64) float64 { return float64(n) / (1 << 20) }
		rate := mb(done) / max(time.Since(start).Seconds(), 0.001)
		if total > 0 {
			pct := float64(done) / float64(total)
			bar := strings.Repeat("#", int(pct*30)) + strings.Repeat(".", 30-int(pct*30))
			fmt.Fprintf(os.Stderr, "\r%-16s [%s] %6.1f/%.1f MB %5.1f MB/s", name, bar, mb(done), mb(total), rate)
			if done == total {
				fmt.Fprintln(os.Stderr)
			}
			return
		}
		fmt.Fprintf(os.Stderr, "\r%-16s %6.1f MB %5.1f MB/s", name, mb(done), rate)
	}
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
