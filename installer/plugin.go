package installer

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/installer/plugins"
	"github.com/pondhq/pond/installer/service"
)

// pluginFor is the plugin Pond installs into an agent's host and the folder under the agent's
// root (its adapter's first root) that the host loads it from: Pi's pi-pond in <agent
// dir>/extensions/pond, OpenClaw's openclaw-pond in <state dir>/extensions/openclaw-pond.
var pluginFor = map[string]struct {
	name string
	dir  func(root string) string
}{
	"pi-coding-agent": {plugins.Pi, plugins.PiDir},
	"openclaw":        {plugins.OpenClaw, plugins.OpenClawDir},
}

// pluginDir is where the agent's host loads Pond's plugin from; "" when this pond has none for it.
func (o *Options) pluginDir(t target) string {
	a, ok := all.ByName(t.name)
	p, has := pluginFor[t.name]
	if !ok || !has {
		return ""
	}
	roots := a.Roots(o.env())
	if len(roots) == 0 {
		return ""
	}
	return p.dir(roots[0])
}

// pluginCurrent says whether dir holds this pond's plugin for the agent.
func pluginCurrent(t target, dir string) bool { return plugins.Current(pluginFor[t.name].name, dir) }

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
	case pluginCurrent(t, dir):
		a.Outcome, a.Detail = service.OutcomeUnchanged, "Pond's plugin "+dir
	default:
		a.Outcome, a.Detail = service.OutcomeInstalled, "Pond's plugin "+dir
		if exists {
			a.Outcome = service.OutcomeUpdated
		}
		a.Changes = append(a.Changes, service.Change{Action: "write", Path: filepath.Join(dir, "index.ts")})
		if !o.DryRun {
			if err := plugins.Write(pluginFor[t.name].name, dir); err != nil {
				a.Outcome, a.Error = OutcomeFailed, fmt.Sprintf("Pond's plugin: %v", err)
			}
		}
	}
	return a
}
