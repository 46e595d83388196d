package present

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pondhq/pond/session/view"
)

// Status is what `pond status` prints: the archive under dataDir, per agent (sub-agent kinds
// only with subagents), the last sync, consent, semantic search, the indexes, the machines
// that write the archive (when several do, or with hosts) and the daemon.
func Status(st *view.Status, dataDir string, subagents, hosts bool) string {
	var b strings.Builder
	if st.Storage != "" {
		fmt.Fprintf(&b, "archive: %d sessions, %d messages, %d parts (%s; its mirror in %s)\n", st.Sessions, st.Messages, st.Parts, Escape(st.Storage), dataDir)
	} else {
		fmt.Fprintf(&b, "archive: %d sessions, %d messages, %d parts (%s)\n", st.Sessions, st.Messages, st.Parts, dataDir)
	}
	agents := slices.Clone(st.Agents)
	sort.SliceStable(agents, func(i, j int) bool { return agents[i].Sessions > agents[j].Sessions })
	for _, a := range agents {
		fmt.Fprintf(&b, "  %-24s %6d sessions %9d messages\n", a.Agent, a.Sessions, a.Messages)
	}
	if !subagents {
		b.WriteString("  (sub-agent sessions not listed; --include-subagents)\n")
	}
	if len(st.Adapters) > 0 {
		fmt.Fprintf(&b, "agents: %d known\n", len(st.Adapters))
		for _, a := range st.Adapters {
			found := "no data found here"
			if a.Path != "" || len(a.Found) > 0 {
				found = "data found"
			}
			restore := "capture only"
			if a.Restore {
				restore = "restores"
			}
			fmt.Fprintf(&b, "  %-24s %-15s %-19s %s\n", a.Name, adapterState(a), found, restore)
		}
	}
	if ls := st.LastSync; ls != nil {
		fmt.Fprintf(&b, "last sync: %s, %s, %d sessions and %d messages new, %.1fs", ls.FinishedAt, ls.Outcome, ls.SessionsInserted, ls.MessagesInserted, ls.DurationSecs)
		if ls.Error != "" {
			fmt.Fprintf(&b, " (%s)", ls.Error)
		}
		b.WriteString("\n")
		for _, h := range ls.Health {
			if line := healthLine(h); line != "" {
				fmt.Fprintf(&b, "  %-24s %s\n", h.Adapter, line)
			}
		}
	} else {
		b.WriteString("last sync: never; run pond sync\n")
	}
	fmt.Fprintf(&b, "capture consent: %s", st.Consent)
	// The enabled agents whose own answer differs from the one for every agent.
	var own []string
	for _, a := range st.Adapters {
		if a.Enabled && a.Consent != "" && a.Consent != st.Consent {
			own = append(own, a.Name+" "+a.Consent)
		}
	}
	if len(own) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(own, ", "))
	}
	b.WriteString("\n")
	if l := st.Limits; l.ValueBytes > 0 {
		fmt.Fprintf(&b, "limits: a value over %s is stored as a size marker; a line over %s, or a compressed file's content past %s, is reported as malformed\n",
			bytesText(l.ValueBytes), bytesText(l.LineBytes), bytesText(l.DecompressedBytes))
	}
	if e := st.Embeddings; e.Enabled {
		fmt.Fprintf(&b, "semantic search: on (%s), %d of %d messages embedded\n", e.Model, e.Embedded, st.Messages)
	} else {
		b.WriteString("semantic search: off\n")
	}
	if r := st.Redaction; r != nil {
		state := "off"
		if r.Enabled {
			state = "on"
		}
		fmt.Fprintf(&b, "secret redaction: %s, %d secrets replaced", state, r.Total)
		for _, rule := range slices.Sorted(maps.Keys(r.Rules)) {
			fmt.Fprintf(&b, "; %s %d", Escape(rule), r.Rules[rule])
		}
		b.WriteString("\n")
	}
	for _, g := range st.ExcludedProjects {
		fmt.Fprintf(&b, "excluded project: %s\n", Escape(g))
	}
	for _, ix := range st.Indexes {
		fmt.Fprintf(&b, "index %s.%s (%s)", ix.Table, ix.Name, ix.Kind)
		if ix.UnindexedRows != nil && *ix.UnindexedRows > 0 {
			fmt.Fprintf(&b, ": %d rows not yet folded in", *ix.UnindexedRows)
		}
		b.WriteString("\n")
	}
	if len(st.Hosts) > 1 || hosts {
		b.WriteString(Hosts(st.Hosts))
	}
	if c := st.DiskCache; c != nil {
		b.WriteString(DiskCache(c))
	}
	if dm := st.Daemon; dm != nil {
		fmt.Fprintf(&b, "daemon: pid %d since %s, watching %d folders", dm.PID, dm.StartedAt.Local().Format(time.DateTime), dm.Watching)
		if dm.LastError != "" {
			fmt.Fprintf(&b, "; last error: %s", dm.LastError)
		}
		b.WriteString("\n")
	} else {
		b.WriteString("daemon: not running\n")
	}
	return b.String()
}

// Hosts is the list of machines writing the archive, a line each.
func Hosts(hosts []view.Host) string {
	var b strings.Builder
	fmt.Fprintf(&b, "machines: %d writing this archive\n", len(hosts))
	for _, h := range hosts {
		name := Escape(h.Hostname)
		if name == "" {
			name = "(unknown)"
		}
		if h.Username != "" {
			name = Escape(h.Username) + "@" + name
		}
		this := ""
		if h.This {
			this = " (this machine)"
		}
		last := ""
		if t, err := time.Parse(time.RFC3339Nano, h.LastCapture); err == nil {
			last = ", last capture " + t.Local().Format(time.DateTime)
		} else if h.LastCapture != "" {
			last = ", last capture " + Escape(h.LastCapture)
		}
		fmt.Fprintf(&b, "  %-32s writer %-6d %6d sessions %9d messages%s%s\n", name, h.Writer, h.Sessions, h.Messages, last, this)
	}
	return b.String()
}

// DiskCache is the line about the local cache of an archive on an object store.
func DiskCache(c *view.DiskCache) string {
	reads := ""
	if n := c.Hits + c.Misses; n > 0 {
		reads = fmt.Sprintf("; %d of %d reads answered from it since the archive was opened", c.Hits, n)
	}
	return fmt.Sprintf("disk cache: %s of %s in %d files%s (%s)\n", sizeText(c.Bytes), bytesText(c.LimitBytes), c.Files, reads, c.Dir)
}

// Plural is one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// healthLine is an adapter's health when something needs a look ("" when it is fine).
func healthLine(h view.AdapterHealth) string {
	var parts []string
	if h.Failing() {
		since := ""
		if h.FailingSince != "" {
			since = " since " + h.FailingSince
		}
		parts = append(parts, fmt.Sprintf("failing%s: %s", since, h.Error))
	}
	if h.Malformed > 0 {
		parts = append(parts, fmt.Sprintf("%d malformed %s in its latest files", h.Malformed, Plural(h.Malformed, "record", "records")))
	}
	if n := len(h.Unknown); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s kept but not read", n, Plural(n, "record type", "record types")))
	}
	return strings.Join(parts, "; ")
}

// Adapters is what `pond adapters list` prints: a line per adapter, its state and where its
// data is.
func Adapters(list []view.Adapter) string {
	var b strings.Builder
	for _, a := range list {
		state := adapterState(a)
		where := a.Path
		if where == "" {
			where = strings.Join(a.Found, ", ")
		}
		if where == "" {
			where = "no data found"
		}
		fmt.Fprintf(&b, "%-16s %-15s %s\n", a.Name, state, where)
	}
	return b.String()
}

// adapterState is an adapter's state in the config: enabled, disabled or not configured.
func adapterState(a view.Adapter) string {
	switch {
	case a.Enabled:
		return "enabled"
	case a.Configured:
		return "disabled"
	}
	return "not configured"
}

// ModelStatus is what `pond model status` prints.
func ModelStatus(s *view.ModelStatus) string {
	var b strings.Builder
	switch {
	case s.Enabled:
		fmt.Fprintf(&b, "semantic search: on, model %s\n", s.Model)
	default:
		b.WriteString("semantic search: off (turn it on with `pond model install`)\n")
	}
	if len(s.Installed) == 0 {
		b.WriteString("installed models: none\n")
	}
	for _, in := range s.Installed {
		mark := " "
		if in.ID == s.Model {
			mark = "*"
		}
		fmt.Fprintf(&b, "%s %s (%s, %d dims) from %s\n    %s\n", mark, in.ID, in.Config.Variant, in.Config.Dimensions, in.Source, in.Dir)
	}
	if e := s.Embedded; e != nil {
		fmt.Fprintf(&b, "embedded: %d of %d searchable messages by %s", e.ThisModel, e.Searchable, e.Model)
		if e.Other > 0 {
			fmt.Fprintf(&b, ", %d by other models (`pond optimize --force-embed` re-embeds them)", e.Other)
		}
		if e.ThisModel+e.Other < e.Searchable {
			b.WriteString("; `pond optimize --embed` embeds the rest")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// ModelVerify is what `pond model verify` prints.
func ModelVerify(rep *view.ModelVerify) string {
	if rep.OK {
		return fmt.Sprintf("%s: every file matches its recorded sha256 and the model loads\n", rep.Model)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %s is damaged:\n", rep.Model, rep.Dir)
	for _, p := range rep.Problems {
		fmt.Fprintf(&b, "  %s: %s\n", p.File, p.Detail)
	}
	b.WriteString("reinstall it with `pond model install` (or --from DIR)\n")
	return b.String()
}

// bytesText is n in binary units, as the limits are set: "8 MiB", "1 GiB".
func bytesText(n int64) string {
	for _, u := range []struct {
		unit string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.unit)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
