package installer

import (
	"fmt"
	"strings"

	"github.com/pondhq/pond/installer/service"
)

// Text renders the report for people: one line per step, then what it changed or would change
// and its advice.
func (r Report) Text(verb string) string {
	var b strings.Builder
	if r.DryRun {
		fmt.Fprintf(&b, "pond %s --dry-run: nothing was changed; this is what would be done.\n", verb)
	}
	fmt.Fprintf(&b, "binary: %s\n\n", r.Binary)
	outcomes, width := make([]string, len(r.Steps)), 0
	for i, s := range r.Steps {
		outcomes[i] = s.Outcome
		if r.DryRun && s.Outcome != OutcomeFailed {
			outcomes[i] = wouldBe(s.Outcome)
		}
		width = max(width, len(outcomes[i]))
	}
	for i, s := range r.Steps {
		fmt.Fprintf(&b, "%-8s %-*s  %s\n", s.Name, width, outcomes[i], s.Summary)
		for _, c := range s.Changes {
			fmt.Fprintf(&b, "%-8s   %s\n", "", c)
		}
		for _, n := range s.Notes {
			fmt.Fprintf(&b, "%-8s   note: %s\n", "", n)
		}
		if s.Error != "" {
			fmt.Fprintf(&b, "%-8s   error: %s\n", "", s.Error)
		}
	}
	return b.String()
}

// wouldBe turns an outcome into what a dry run would lead to.
func wouldBe(outcome string) string {
	switch outcome {
	case service.OutcomeInstalled, service.OutcomeUpdated, service.OutcomeStarted, service.OutcomeRemoved:
		return "would be " + outcome
	}
	return outcome
}
