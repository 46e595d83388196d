package present

import (
	"fmt"
	"strings"

	"github.com/pondhq/pond/session/view"
)

// Resume is what `pond resume` prints after a restore: the files written, each with its
// fidelity, and the command that continues the work (opened in a terminal named launched, or,
// with launch, none could be opened). A restore that did not happen prints nothing: its message
// is the error.
func Resume(o *view.ResumeOutcome, launch bool, launched string) string {
	if o.Status != view.ResumeOK {
		return ""
	}
	var b strings.Builder
	kind := "foreign"
	if o.Native {
		kind = "native"
	}
	fmt.Fprintf(&b, "restored %s session %s into %s (%s), as %s:\n", o.From, o.Session, o.To, kind, o.ID)
	for _, f := range o.Files {
		fid := string(f.Fidelity)
		if f.Sidecar {
			fid = "sidecar"
		}
		fmt.Fprintf(&b, "  %-10s %s\n", fid, f.Path)
		if f.Reason != "" && !f.Sidecar {
			fmt.Fprintf(&b, "             %s\n", f.Reason)
		}
		if len(f.Includes) > 0 {
			// Sessions the agent keeps inside this file (Copilot CLI's sub-agents).
			fmt.Fprintf(&b, "             with %s\n", strings.Join(f.Includes, ", "))
		}
	}
	switch {
	case launched != "":
		fmt.Fprintf(&b, "opened in %s:\n  %s\n", launched, o.Command)
	case launch:
		fmt.Fprintf(&b, "no terminal window could be opened here; continue with:\n  %s\n", o.Command)
	default:
		fmt.Fprintf(&b, "continue with:\n  %s\n", o.Command)
	}
	return b.String()
}
