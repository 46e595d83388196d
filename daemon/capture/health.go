package capture

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/pondhq/pond/session/view"
)

// problemsKept is how many malformed records a health record lists.
const problemsKept = 3

// nextHealth folds a sync's per-adapter reports into the health records of earlier syncs:
// adapters the sync did not run keep theirs. An adapter whose root is missing is not failing
// (the agent is not installed); one that read no changed files keeps its counts.
func nextHealth(prev []view.AdapterHealth, r *view.SyncReport) []view.AdapterHealth {
	if r == nil || r.DryRun {
		return prev
	}
	byName := map[string]int{}
	out := slices.Clone(prev)
	for i, h := range out {
		byName[h.Adapter] = i
	}
	at := r.FinishedAt.UTC().Format(time.RFC3339)
	for _, ar := range r.Adapters {
		i, ok := byName[ar.Adapter]
		if !ok {
			out = append(out, view.AdapterHealth{Adapter: ar.Adapter})
			i = len(out) - 1
			byName[ar.Adapter] = i
		}
		h := &out[i]
		switch {
		case ar.Reason == "not_found":
			h.Error, h.FailingSince = "", ""
		case ar.Error != "" || ar.Reason != "":
			if h.Error == "" {
				h.FailingSince = at
			}
			h.Error = cmp.Or(ar.Error, ar.Reason)
		default:
			h.Error, h.FailingSince, h.LastOK = "", "", at
			if ar.New+ar.Updated > 0 || ar.MalformedCount > 0 {
				h.Malformed, h.Unknown = ar.MalformedCount, ar.Unknown
				h.Problems = slices.Clone(ar.Malformed[:min(len(ar.Malformed), problemsKept)])
			}
		}
	}
	slices.SortFunc(out, func(a, b view.AdapterHealth) int { return strings.Compare(a.Adapter, b.Adapter) })
	return out
}
