package installer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/installer/plugins"
	"github.com/pondhq/pond/installer/service"
)

// hostPlugin is how one agent's host takes Pond's plugin.
type hostPlugin struct {
	plugin string                   // its name in package plugins
	dir    func(root string) string // the plugin's folder, from the agent's first root
	// enabledIn is the host's config file (relative to the root) whose plugins.enabled list
	// must name the plugin, for a host that loads only the plugins named there (Hermes); ""
	// when the folder alone is enough (Pi).
	enabledIn string
}

// hostPlugins are the agents whose hosts get Pond's plugin in this pond, by adapter name.
var hostPlugins = map[string]hostPlugin{
	"pi-coding-agent": {plugin: plugins.Pi, dir: plugins.PiDir},
	"openclaw":        {plugin: plugins.OpenClaw, dir: plugins.OpenClawDir},
	"hermes":          {plugin: plugins.Hermes, dir: plugins.HermesDir, enabledIn: "config.yaml"},
}

// Where a host's config names the plugins it loads (Hermes's config.yaml).
const (
	pluginsSection = "plugins"
	enabledKey     = "enabled"
	disabledKey    = "disabled"
)

// pluginPlace is where the agent's host loads Pond's plugin from: its folder, and the config
// file that must enable it ("" when none must); dir is "" when this pond has no plugin for it.
func (o *Options) pluginPlace(t target) (hp hostPlugin, dir, config string) {
	hp, ok := hostPlugins[t.name]
	a, known := all.ByName(t.name)
	if !ok || !known {
		return hp, "", ""
	}
	roots := a.Roots(o.env())
	if len(roots) == 0 {
		return hp, "", ""
	}
	if hp.enabledIn != "" {
		config = filepath.Join(roots[0], hp.enabledIn)
	}
	return hp, hp.dir(roots[0]), config
}

// pluginDir is where the agent's host loads Pond's plugin from; "" when this pond has none.
func (o *Options) pluginDir(t target) string {
	_, dir, _ := o.pluginPlace(t)
	return dir
}

// enabledEdit is the change to a host's config that names (enable) or stops naming
// (!enable) Pond's plugin: out is nil when the file already is so.
type enabledEdit struct {
	path   string
	before []byte
	out    []byte
	cfg    *yamlFile
}

func readEnabled(path string) (*yamlFile, []byte, error) {
	src, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	cfg, err := parseYAMLFile(src)
	if err != nil {
		return nil, nil, err
	}
	return cfg, src, nil
}

func planEnabled(path string, enable bool) (enabledEdit, error) {
	e := enabledEdit{path: path}
	cfg, src, err := readEnabled(path)
	if err != nil {
		return e, err
	}
	e.cfg, e.before = cfg, src
	out, err := cfg.setListItem(pluginsSection, enabledKey, plugins.HermesName, enable)
	if errors.Is(err, errYAMLNoChange) {
		return e, nil
	}
	e.out = out
	return e, err
}

// setPlugin writes Pond's plugin into the agent's host (install), or removes it (!install),
// and names it in (takes it out of) the host's list of enabled plugins where it has one.
func (o *Options) setPlugin(t target, install bool) Agent {
	a := Agent{Agent: t.name}
	hp, dir, config := o.pluginPlace(t)
	switch {
	case dir == "" && install:
		a.Outcome, a.Detail = OutcomeSkipped, "gets Pond's plugin instead of an MCP entry (not in this pond yet): nothing registered"
		return a
	case dir == "":
		a.Outcome = service.OutcomeAbsent
		return a
	case install && !t.detected:
		a.Outcome, a.Detail = service.OutcomeAbsent, "not installed here (name it in --agents to install Pond's plugin anyway)"
		return a
	}
	a.Via = dir
	fail := func(err error) Agent { a.Outcome, a.Error = OutcomeFailed, err.Error(); return a }
	_, err := os.Stat(dir)
	exists := err == nil

	// The config first: a file that cannot be edited stops the step before anything is written.
	var edit enabledEdit
	if config != "" {
		edit, err = planEnabled(config, install)
		if err != nil {
			how := "add " + plugins.HermesName + " to " + pluginsSection + "." + enabledKey + " by hand"
			if !install {
				how = "take " + plugins.HermesName + " out of " + pluginsSection + "." + enabledKey + " by hand"
			}
			return fail(fmt.Errorf("%s: %w; it was left as it is: repair it, or %s", config, err, how))
		}
	}

	if !install {
		if !exists && edit.out == nil {
			a.Outcome = service.OutcomeAbsent
			return a
		}
		a.Outcome, a.Detail = service.OutcomeRemoved, "Pond's plugin "+dir
		if exists {
			a.Changes = append(a.Changes, service.Change{Action: "remove", Path: dir})
		}
		if edit.out != nil {
			a.Detail = join(a.Detail, plugins.HermesName+" taken out of "+pluginsSection+"."+enabledKey+" in "+config)
			a.Changes = append(a.Changes, service.Change{Action: "write", Path: config})
		}
		if o.DryRun {
			return a
		}
		if exists {
			if err := os.RemoveAll(dir); err != nil {
				return fail(err)
			}
		}
		if edit.out != nil {
			if err := writeConfig(config, edit.before, edit.out); err != nil {
				return fail(err)
			}
		}
		return a
	}

	current := plugins.Current(hp.plugin, dir)
	a.Detail = "Pond's plugin " + dir
	switch {
	case current && edit.out == nil:
		a.Outcome = service.OutcomeUnchanged
	case exists:
		a.Outcome = service.OutcomeUpdated
	default:
		a.Outcome = service.OutcomeInstalled
	}
	if !current {
		a.Changes = append(a.Changes, service.Change{Action: "write", Path: filepath.Join(dir, plugins.Main(hp.plugin))})
	}
	if edit.out != nil {
		a.Detail = join(a.Detail, plugins.HermesName+" added to "+pluginsSection+"."+enabledKey+" in "+config)
		a.Changes = append(a.Changes, service.Change{Action: "write", Path: config})
	}
	if edit.cfg != nil && edit.cfg.has(pluginsSection, disabledKey, plugins.HermesName) {
		a.Detail = join(a.Detail, fmt.Sprintf("but %s is also in %s.%s in %s, which wins: take it out there for the agent to load it",
			plugins.HermesName, pluginsSection, disabledKey, config))
	}
	if o.DryRun {
		return a
	}
	if !current {
		if err := plugins.Write(hp.plugin, dir); err != nil {
			return fail(fmt.Errorf("Pond's plugin: %w", err))
		}
	}
	if edit.out != nil {
		if err := os.MkdirAll(filepath.Dir(config), 0o700); err != nil {
			return fail(err)
		}
		if err := writeConfig(config, edit.before, edit.out); err != nil {
			return fail(err)
		}
	}
	return a
}

// pluginDoctor says, for doctor, whether the agent's host has this pond's plugin: wired (the
// files as embedded, and named where the host must find it enabled), stale, or absent.
func (o *Options) pluginDoctor(t target, a *Agent) {
	hp, dir, config := o.pluginPlace(t)
	if dir == "" {
		a.Detail = "gets Pond's plugin instead (not in this pond yet)"
		return
	}
	_, err := os.Stat(dir)
	exists := err == nil
	enabled := true
	if config != "" {
		cfg, _, err := readEnabled(config)
		enabled = err == nil && cfg.has(pluginsSection, enabledKey, plugins.HermesName) &&
			!cfg.has(pluginsSection, disabledKey, plugins.HermesName)
	}
	switch {
	case plugins.Current(hp.plugin, dir) && enabled:
		a.Outcome, a.Via = Wired, dir
	case exists && !plugins.Current(hp.plugin, dir):
		a.Outcome, a.Via, a.Detail = Stale, dir, "another pond's plugin: pond install updates it"
	case exists:
		a.Outcome, a.Via, a.Detail = Stale, dir, fmt.Sprintf("not enabled in %s (%s.%s): pond install adds it", config, pluginsSection, enabledKey)
	case t.detected:
		a.Outcome = service.OutcomeAbsent
	}
}
