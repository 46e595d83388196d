package present

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pondhq/pond/session/view"
)

// Sync is what `pond sync` prints: per adapter its sources and rows, what was kept out, and the
// outcome.
func Sync(r *view.SyncReport) string {
	var b strings.Builder
	for _, a := range r.Adapters {
		fmt.Fprintf(&b, "%s", a.Adapter)
		if a.Reason != "" {
			fmt.Fprintf(&b, ": %s (%s)\n", a.Error, a.Reason)
			continue
		}
		if r.DryRun {
			fmt.Fprintf(&b, ": %d sources; would read %d new and %d changed", a.Sources, a.New, a.Updated)
		} else {
			fmt.Fprintf(&b, ": %d sources: %d new, %d updated", a.Sources, a.New, a.Updated)
		}
		if s := a.SortedSkips(); s != "" {
			fmt.Fprintf(&b, ", %s", s)
		}
		fmt.Fprintf(&b, "\n  stored %d sessions, %d messages, %d parts", a.Inserted.Sessions, a.Inserted.Messages, a.Inserted.Parts)
		if a.Matched.Messages+a.Matched.Parts > 0 {
			fmt.Fprintf(&b, " (%d messages, %d parts already stored)", a.Matched.Messages, a.Matched.Parts)
		}
		b.WriteString("\n")
		if a.Named && a.Sources == 0 {
			// Most often a --path one level too deep or too shallow.
			fmt.Fprintf(&b, "  no sessions found under %s; is it the folder the agent itself uses? (pond sync --help)\n", strings.Join(a.Roots, ", "))
		}
		if a.MalformedCount > 0 {
			fmt.Fprintf(&b, "  %d malformed records kept out:\n", a.MalformedCount)
			for i, p := range a.Malformed {
				if i == 10 {
					fmt.Fprintf(&b, "    … %d more (--format json lists up to 100)\n", a.MalformedCount-10)
					break
				}
				fmt.Fprintf(&b, "    %s:%d: %s\n", p.Path, p.Line, p.Error)
			}
		}
		for _, p := range a.Unreadable {
			fmt.Fprintf(&b, "  unreadable: %s: %s\n", p.Path, p.Error)
		}
		if len(a.Unknown) > 0 {
			var kinds []string
			for k, n := range a.Unknown {
				kinds = append(kinds, fmt.Sprintf("%s×%d", k, n))
			}
			sort.Strings(kinds)
			fmt.Fprintf(&b, "  kept as raw records (format drift): %s\n", strings.Join(kinds, ", "))
		}
	}
	fmt.Fprintf(&b, "outcome: %s in %.1fs\n", r.Outcome, r.FinishedAt.Sub(r.StartedAt).Seconds())
	return b.String()
}

// Import is what `pond import` prints.
func Import(sum *view.ImportSummary) string {
	txt := fmt.Sprintf("imported %d events: %d sessions, %d messages, %d parts new; %d sessions, %d messages, %d parts already stored\n",
		sum.Events, sum.Inserted.Sessions, sum.Inserted.Messages, sum.Inserted.Parts,
		sum.Matched.Sessions, sum.Matched.Messages, sum.Matched.Parts)
	if sum.Malformed > 0 || len(sum.Errors) > 0 {
		txt += fmt.Sprintf("%d malformed lines, %d rejected rows:\n", sum.Malformed, sum.Rejected.Sessions+sum.Rejected.Messages+sum.Rejected.Parts)
		for _, e := range sum.Errors {
			txt += "  " + e + "\n"
		}
	}
	return txt
}
