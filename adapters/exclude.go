package adapters

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Exclusions are the projects the user never wants captured: path globs (filepath.Match
// syntax, a leading ~ for the home folder), each excluding the folders it matches and every
// folder under them.
type Exclusions struct {
	globs []string
}

// NewExclusions checks and expands globs; home replaces a leading ~.
func NewExclusions(globs []string, home string) (*Exclusions, error) {
	x := &Exclusions{}
	for _, g := range globs {
		g = strings.TrimSpace(g)
		if g == "" {
			continue
		}
		if g == "~" || strings.HasPrefix(g, "~/") {
			if home == "" {
				return nil, fmt.Errorf("excluded project %q: no home folder to expand ~ with", g)
			}
			g = home + g[1:]
		}
		if !filepath.IsAbs(g) {
			return nil, fmt.Errorf("excluded project %q: want an absolute path or one under ~", g)
		}
		g = filepath.Clean(g)
		if _, err := filepath.Match(g, ""); err != nil {
			return nil, fmt.Errorf("excluded project %q: %w", g, err)
		}
		x.globs = append(x.globs, g)
	}
	return x, nil
}

// Globs are the expanded globs.
func (x *Exclusions) Globs() []string {
	if x == nil {
		return nil
	}
	return x.globs
}

// Empty reports whether nothing is excluded.
func (x *Exclusions) Empty() bool { return x == nil || len(x.globs) == 0 }

// Project reports whether project (a session's working directory) is excluded: a glob matches
// it or one of the folders above it.
func (x *Exclusions) Project(project string) bool {
	if x.Empty() || project == "" {
		return false
	}
	p := filepath.Clean(project)
	for {
		for _, g := range x.globs {
			if ok, _ := filepath.Match(g, p); ok {
				return true
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		p = parent
	}
}

// SourceExcluder is implemented by an adapter whose sources' paths name the project they hold
// (Claude Code's projects/<encoded cwd>/…): the sync engine skips a source of an excluded
// project without opening it. Sessions of an excluded project that the path does not tell
// (one file or database for every project, or a name that cannot say) are read, and their
// rows dropped before they are stored.
type SourceExcluder interface {
	ExcludedSource(root string, src Source, x *Exclusions) bool
}
