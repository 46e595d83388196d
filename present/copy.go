package present

import (
	"fmt"
	"strings"
	"time"

	"github.com/pondhq/pond/session/view"
)

// Copy is what `pond copy` prints: what was copied, the upkeep done at the destination and the
// verification (for --verify-only, only the verification).
func Copy(r *view.CopyReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "from %s\nto   %s\n", r.From, r.To)
	if r.Verification == nil || r.Elapsed > 0 || r.Inserted != (view.Tally{}) || r.Appended+r.Grown+r.Unchanged > 0 {
		fmt.Fprintf(&b, "sessions: %d appended, %d grown, %d unchanged\n", r.Appended, r.Grown, r.Unchanged)
		fmt.Fprintf(&b, "inserted: %d sessions, %d messages, %d parts", r.Inserted.Sessions, r.Inserted.Messages, r.Inserted.Parts)
		if r.Elapsed > 0 {
			fmt.Fprintf(&b, " in %s", r.Elapsed.Round(time.Millisecond))
			if s := r.Elapsed.Seconds(); s > 0 && r.Inserted.Messages > 0 {
				fmt.Fprintf(&b, " (%.0f messages/s)", float64(r.Inserted.Messages)/s)
			}
		}
		b.WriteString("\n")
		if r.Vectors > 0 {
			fmt.Fprintf(&b, "vectors: %d messages keep their embeddings\n", r.Vectors)
		}
		if r.ErasedAtSource > 0 {
			fmt.Fprintf(&b, "not copied: %d sessions erased at the source\n", r.ErasedAtSource)
		}
		if r.ErasuresCarried > 0 {
			fmt.Fprintf(&b, "erasures: %d sessions erased at the source are on the destination's erase list now\n", r.ErasuresCarried)
		}
		if len(r.ErasedHeld) > 0 {
			fmt.Fprintf(&b, "erased at the source but held here (pond erase them to follow): %s\n", Escape(strings.Join(r.ErasedHeld, " ")))
		}
		if n := r.Erased; n != (view.Tally{}) {
			fmt.Fprintf(&b, "left out: %d sessions, %d messages, %d parts the destination erased\n", n.Sessions, n.Messages, n.Parts)
		}
		if n := r.Rejected; n != (view.Tally{}) {
			fmt.Fprintf(&b, "refused by the destination: %d sessions, %d messages, %d parts\n", n.Sessions, n.Messages, n.Parts)
			for _, e := range r.Errors {
				fmt.Fprintf(&b, "  %s\n", e)
			}
		}
		if len(r.Upkeep) > 0 {
			steps := make([]string, len(r.Upkeep))
			for i, s := range r.Upkeep {
				steps[i] = string(s)
			}
			fmt.Fprintf(&b, "destination upkeep: %s\n", strings.Join(steps, ", "))
		}
	}
	if v := r.Verification; v != nil {
		writeVerification(&b, v)
	}
	return b.String()
}

func writeVerification(b *strings.Builder, v *view.CopyVerification) {
	fmt.Fprintf(b, "%-9s %10s %12s %8s %10s %7s\n", "table", "source", "destination", "missing", "duplicates", "erased")
	for _, t := range v.Tables {
		fmt.Fprintf(b, "%-9s %10d %12d %8d %10d %7d\n", t.Table, t.Source, t.Destination, t.Missing, t.Duplicates, t.Erased)
	}
	for _, t := range v.Tables {
		for _, k := range t.MissingKeys {
			fmt.Fprintf(b, "missing   %s %s\n", t.Table, k)
		}
		for _, k := range t.DuplicateKeys {
			fmt.Fprintf(b, "duplicate %s %s\n", t.Table, k)
		}
	}
	if v.OK {
		b.WriteString("verified: every source row is at the destination, once\n")
	} else {
		b.WriteString("VERIFICATION FAILED: rows are missing or duplicated at the destination\n")
	}
}
