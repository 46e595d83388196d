package installer

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/installer/plugins"
	"github.com/pondhq/pond/installer/service"
)

// pluginDir is where the agent's host loads Pond's plugin from; "" when this pond has none for
// it (only Pi's, pi-pond, so far: <agent dir>/extensions/pond).
func (o *Options) pluginDir(t target) string {
	a, ok := all.ByName(t.name)
	if !ok || t.name != "pi-coding-agent" {
		return ""
	}
	roots := a.Roots(o.env())
	if len(roots) == 0 {
		return ""
	}
	return plugins.PiDir(roots[0])
}

// setPlugin writes Pond's plugin into the agent's host (install), or removes it (!install).
func (o *Options) setPlugin(t target, install bool) Agent {
	a := Agent{Agent: t.name}
	dir := o.pluginDir(t)
	switch {
	case dir == "" && install:
		a.Outcome, a.Detail = OutcomeSkipped, "gets Pond's plugin instead of an MCP entry (not in this pond yet): nothing registered"
		return a
	case dir == "":
		a.Outcome = service.OutcomeAbsent
		return a
	}
	a.Via = dir
	_, err := os.Stat(dir)
	exists := err == nil
	switch {
	case !install && !exists:
		a.Outcome = service.OutcomeAbsent
	case !install:
		a.Outcome, a.Detail = service.OutcomeRemoved, "Pond's plugin "+dir
		a.Changes = append(a.Changes, service.Change{Action: "remove", Path: dir})
		if !o.DryRun {
			if err := os.RemoveAll(dir); err != nil {
				a.Outcome, a.Error = OutcomeFailed, err.Error()
			}
		}
	case !t.detected:
		a.Outcome, a.Detail = service.OutcomeAbsent, "not installed here (name it in --agents to install Pond's plugin anyway)"
	case plugins.PiCurrent(dir):
		a.Outcome, a.Detail = service.OutcomeUnchanged, "Pond's plugin "+dir
	default:
		a.Outcome, a.Detail = service.OutcomeInstalled, "Pond's plugin "+dir
		if exists {
			a.Outcome = service.OutcomeUpdated
		}
		a.Changes = append(a.Changes, service.Change{Action: "write", Path: filepath.Join(dir, "index.ts")})
		if !o.DryRun {
			if err := plugins.WritePi(dir); err != nil {
				a.Outcome, a.Error = OutcomeFailed, fmt.Sprintf("Pond's plugin: %v", err)
			}
		}
	}
	return a
}
