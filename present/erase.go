package present

import (
	"fmt"
	"strings"
	"time"

	"github.com/pondhq/pond/session/view"
)

// Erase is what `pond erase` prints: the sessions erased (or, in a dry run, that would be),
// what went with them and what the disk got back.
func Erase(r *view.EraseReport) string {
	var b strings.Builder
	verb := "erased"
	if r.DryRun {
		verb = "would erase"
	}
	if len(r.Sessions) == 0 {
		b.WriteString("no stored session matches\n")
	}
	for _, s := range r.Sessions {
		sub := ""
		if s.Parent != "" {
			sub = ", sub-agent of " + Escape(s.Parent)
		}
		fmt.Fprintf(&b, "%s %s  %s  %s  %s  %d messages, %d parts%s\n", verb, Escape(s.ID), Escape(s.Agent), Escape(s.Project),
			s.CreatedAt.Format(time.DateOnly), s.Messages, s.Parts, sub)
	}
	for _, id := range r.NotFound {
		fmt.Fprintf(&b, "not in the archive: %s\n", Escape(id))
	}
	for _, p := range r.Exports {
		state := "holds an erased session (remove it with --exports)"
		if r.ExportsRemoved {
			state = "removed"
		}
		fmt.Fprintf(&b, "export %s: %s\n", Escape(p), state)
	}
	if r.DryRun {
		if len(r.Sessions) > 0 {
			fmt.Fprintf(&b, "%d sessions, %d messages, %d parts; nothing was changed (run again without --dry-run)\n",
				r.Removed.Sessions, r.Removed.Messages, r.Removed.Parts)
		}
		return b.String()
	}
	if r.Denylisted == 0 {
		return b.String()
	}
	fmt.Fprintf(&b, "removed %d sessions, %d messages, %d parts; rewrote %d rows of other sessions that shared their files\n",
		r.Removed.Sessions, r.Removed.Messages, r.Removed.Parts, r.Rewritten.Sessions+r.Rewritten.Messages+r.Rewritten.Parts)
	if len(r.IndexesRebuilt) > 0 {
		fmt.Fprintf(&b, "rebuilt indexes: %s\n", strings.Join(r.IndexesRebuilt, ", "))
	}
	fmt.Fprintf(&b, "overwrote and removed %d files; reclaimed %s (data directory %s -> %s)\n", r.Files,
		sizeText(r.BytesReclaimed), sizeText(r.BytesBefore), sizeText(r.BytesAfter))
	fmt.Fprintf(&b, "a later sync will not capture these sessions again (pond erase --lift ID undoes that); took %s\n",
		r.Elapsed.Round(time.Millisecond))
	return b.String()
}

// Lift is what `pond erase --lift` prints.
func Lift(r *view.LiftReport) string {
	var b strings.Builder
	for _, id := range r.Lifted {
		fmt.Fprintf(&b, "lifted %s: the next sync captures it again if its agent still has it\n", Escape(id))
	}
	for _, id := range r.NotFound {
		fmt.Fprintf(&b, "not on the erase list: %s\n", Escape(id))
	}
	return b.String()
}

func sizeText(n int64) string {
	neg := ""
	if n < 0 {
		neg, n = "-", -n
	}
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%s%.1f GiB", neg, float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%s%.1f MiB", neg, float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%s%.1f KiB", neg, float64(n)/(1<<10))
	}
	return fmt.Sprintf("%s%d B", neg, n)
}
