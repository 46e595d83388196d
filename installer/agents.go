package installer

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/assets"
	"github.com/pondhq/pond/installer/service"
	"github.com/pondhq/pond/internal/atomicfile"
)

// ServerName is the name Pond's MCP server has in every agent's config.
const ServerName = "pond"

// skillName is the folder of Pond's recall skill in an agent's skills folder.
const skillName = "pond-recall"

// Agent is what the agents step did for one agent, or what doctor found there.
type Agent struct {
	Agent   string `json:"agent"`
	Outcome string `json:"outcome"`       // installed, updated, unchanged, removed, absent, skipped, failed; doctor: wired, stale, absent
	Via     string `json:"via,omitempty"` // the agent's command, or the config file edited
	Detail  string `json:"detail,omitempty"`
	Error   string `json:"error,omitempty"`
	// Changes are what was (in a dry run: would be) run or written.
	Changes []service.Change `json:"changes,omitempty"`
}

// What doctor says of an agent's entry.
const (
	Wired = "wired" // Pond's entry runs this binary
	Stale = "stale" // Pond's entry runs another binary or command
	// an entry that is not there is service.OutcomeAbsent
)

// target is one agent the step looks at.
type target struct {
	name     string
	in       adapters.Integration
	detected bool
}

func (o *Options) env() adapters.Env {
	if o.Env.Getenv == nil {
		return adapters.CurrentEnv()
	}
	return o.Env
}

func (o *Options) lookPath(name string) (string, error) {
	if o.LookPath != nil {
		return o.LookPath(name)
	}
	return exec.LookPath(name)
}

// targets are the agents in adapters/all, each with whether it is on this machine (its command
// on PATH, its config file or its root present), limited to names when given.
func (o *Options) targets(names []string) ([]target, error) {
	env := o.env()
	var out []target
	known := map[string]bool{}
	for _, a := range all.Adapters() {
		known[a.Name()] = true
		d, ok := a.(adapters.Describer)
		if !ok {
			continue
		}
		t := target{name: a.Name(), in: d.Describe().Integration}
		if m := t.in.MCP; m != nil {
			if _, err := o.lookPath(m.CLI); err == nil {
				t.detected = true
			}
			if _, ok := configFile(env, m); ok {
				t.detected = true
			}
		}
		for _, r := range a.Roots(env) {
			if _, err := os.Stat(r); err == nil {
				t.detected = true
			}
		}
		out = append(out, t)
	}
	if len(names) == 0 {
		return out, nil
	}
	var picked []target
	for _, n := range names {
		if !known[n] {
			return nil, fmt.Errorf("unknown agent %q in --agents (known: %s)", n, strings.Join(all.Names(), ", "))
		}
		for _, t := range out {
			if t.name == n {
				t.detected = true // asked for by name: registered even before its first run
				picked = append(picked, t)
			}
		}
	}
	return picked, nil
}

// configFile is the agent's config: the first candidate that exists, else the first.
func configFile(env adapters.Env, m *adapters.MCP) (string, bool) {
	c := m.Configs(env)
	for _, p := range c {
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
	}
	if len(c) == 0 {
		return "", false
	}
	return c[0], false
}

func (o *Options) argv() []string { return []string{o.Exe, "mcp"} }

func installAgents(ctx context.Context, o *Options) Step {
	if !o.MCP {
		return Step{Outcome: OutcomeSkipped, Summary: "--no-mcp: no agent is given Pond's MCP server"}
	}
	ts, err := o.targets(o.Agents)
	if err != nil {
		return failed(err)
	}
	return o.runAgents(ts, func(t target) Agent { return o.register(ctx, t) },
		"Pond's MCP server (`"+strings.Join(o.argv(), " ")+"`) in each agent's user config")
}

func uninstallAgents(ctx context.Context, o *Options) Step {
	ts, err := o.targets(nil)
	if err != nil {
		return failed(err)
	}
	return o.runAgents(ts, func(t target) Agent { return o.unregister(ctx, t) }, "Pond's MCP server and recall skill in the agents' configs")
}

func (o *Options) runAgents(ts []target, do func(target) Agent, summary string) Step {
	st := Step{Outcome: service.OutcomeUnchanged, Summary: summary}
	rank := map[string]int{service.OutcomeUnchanged: 1, service.OutcomeAbsent: 0, OutcomeSkipped: 0,
		service.OutcomeRemoved: 2, service.OutcomeUpdated: 2, service.OutcomeInstalled: 3, OutcomeFailed: 4}
	best := -1
	var errs []string
	for _, t := range ts {
		a := do(t)
		st.Agents = append(st.Agents, a)
		if r := rank[a.Outcome]; r > best {
			best, st.Outcome = r, a.Outcome
		}
		if a.Error != "" {
			errs = append(errs, a.Agent+": "+a.Error)
		}
	}
	if best <= 0 {
		st.Outcome = service.OutcomeAbsent
	}
	if len(errs) > 0 {
		st.Outcome, st.Error = OutcomeFailed, strings.Join(errs, "; ")
	}
	return st
}

// register gives one agent Pond's entry (and its recall skill where it has a skills folder).
func (o *Options) register(ctx context.Context, t target) Agent {
	a := Agent{Agent: t.name}
	switch {
	case t.in.Plugin:
		return o.setPlugin(t, true)
	case t.in.MCP == nil:
		a.Outcome, a.Detail = OutcomeSkipped, cmp.Or(t.in.None, "Pond has no way to plug into this agent yet")
		return a
	case !t.detected:
		a.Outcome, a.Detail = service.OutcomeAbsent, "not installed here (name it in --agents to register it anyway)"
		return a
	}
	a = o.setEntry(ctx, t, o.argv())
	if a.Outcome == OutcomeFailed || t.in.Skills == nil {
		return a
	}
	if dir := t.in.Skills(o.env()); dir != "" {
		changed, err := o.writeSkill(dir)
		switch {
		case err != nil:
			a.Outcome, a.Error = OutcomeFailed, err.Error()
		case changed:
			p := filepath.Join(dir, skillName, "SKILL.md")
			a.Detail = join(a.Detail, "recall skill "+p)
			a.Changes = append(a.Changes, service.Change{Action: "write", Path: p})
			if a.Outcome == service.OutcomeUnchanged {
				a.Outcome = service.OutcomeUpdated
			}
		}
	}
	return a
}

func (o *Options) unregister(ctx context.Context, t target) Agent {
	a := Agent{Agent: t.name, Outcome: service.OutcomeAbsent}
	if t.in.Plugin {
		return o.setPlugin(t, false)
	}
	if t.in.MCP == nil {
		return a
	}
	a = o.setEntry(ctx, t, nil)
	if a.Outcome == OutcomeFailed || t.in.Skills == nil {
		return a
	}
	if dir := t.in.Skills(o.env()); dir != "" {
		removed, err := o.removeSkill(dir)
		switch {
		case err != nil:
			a.Outcome, a.Error = OutcomeFailed, err.Error()
		case removed:
			p := filepath.Join(dir, skillName)
			a.Outcome, a.Detail = service.OutcomeRemoved, join(a.Detail, "recall skill "+p)
			a.Changes = append(a.Changes, service.Change{Action: "remove", Path: p})
		}
	}
	return a
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// setEntry makes the agent's user config hold Pond's entry running argv (nil: hold none), with
// the agent's own command when it has one on PATH, else by editing the file.
func (o *Options) setEntry(ctx context.Context, t target, argv []string) Agent {
	m := t.in.MCP
	a := Agent{Agent: t.name}
	fail := func(err error) Agent { a.Outcome, a.Error = OutcomeFailed, err.Error(); return a }
	path, _ := configFile(o.env(), m)
	if path == "" {
		return fail(errors.New("no home folder to find its config in"))
	}
	cfg, err := readConfig(path, m)
	if err != nil {
		return fail(fmt.Errorf("%s: %w; it was left as it is: repair it, then run this command again", path, err))
	}
	cur, has := cfg.entry(m.Servers, ServerName)
	switch {
	case argv == nil && !has:
		a.Outcome = service.OutcomeAbsent
		return a
	case argv == nil:
		a.Outcome = service.OutcomeRemoved
	case !has:
		a.Outcome = service.OutcomeInstalled
	case reflect.DeepEqual(entryArgv(cur), argv):
		a.Outcome, a.Via = service.OutcomeUnchanged, path
		return a
	default:
		a.Outcome, a.Detail = service.OutcomeUpdated, "was "+strings.Join(entryArgv(cur), " ")
	}

	cli := ""
	if m.Add != nil {
		cli, _ = o.lookPath(m.CLI)
	}
	if cli != "" {
		var runs [][]string
		if has {
			runs = append(runs, m.Remove(ServerName))
		}
		if argv != nil {
			runs = append(runs, m.Add(ServerName, argv))
		}
		a.Via = m.CLI + " " + strings.Join(runs[len(runs)-1][:2], " ")
		for _, args := range runs {
			a.Changes = append(a.Changes, service.Change{Action: "run", Command: append([]string{m.CLI}, args...)})
		}
		if o.DryRun {
			return a
		}
		var runErr error
		for _, args := range runs {
			if runErr = runAgentCLI(ctx, cli, args); runErr != nil {
				break
			}
		}
		// Whether the agent's command did it or failed half-way, the file says where things are.
		after, err := readConfig(path, m)
		if err != nil {
			return fail(fmt.Errorf("after %s: %s: %w", a.Via, path, err))
		}
		got, ok := after.entry(m.Servers, ServerName)
		if runErr == nil {
			if ok != (argv != nil) || ok && !reflect.DeepEqual(entryArgv(got), argv) {
				return fail(fmt.Errorf("%s ran, but %s does not hold the entry it should (%v)", a.Via, path, entryArgv(got)))
			}
			return a
		}
		// The agent's command failed (a broken install, say): edit its file instead.
		a.Detail = join(a.Detail, runErr.Error()+"; edited the file instead")
		cfg = after
	}

	a.Via = path
	a.Changes = append(a.Changes, service.Change{Action: "write", Path: path})
	var entry map[string]any
	if argv != nil {
		entry = m.Entry(argv)
	}
	out, err := cfg.set(m.Servers, ServerName, entry)
	if err != nil {
		return fail(fmt.Errorf("%s: %w; it was left as it is: %s", path, err, o.handAdvice(m, argv != nil)))
	}
	if o.DryRun {
		return a
	}
	if err := writeConfig(path, cfg.source(), out); err != nil {
		return fail(err)
	}
	return a
}

// handAdvice says how to do by hand what the installer would not.
func (o *Options) handAdvice(m *adapters.MCP, add bool) string {
	switch {
	case !add && m.Remove != nil:
		return "remove it with " + m.CLI + " " + strings.Join(m.Remove(ServerName), " ")
	case !add:
		return fmt.Sprintf("remove %q from %q by hand", ServerName, m.Servers)
	case m.Add != nil:
		return "add it with " + m.CLI + " " + strings.Join(m.Add(ServerName, o.argv()), " ")
	}
	b, _ := json.Marshal(map[string]any{ServerName: m.Entry(o.argv())})
	return fmt.Sprintf("under %q put %s by hand", m.Servers, b)
}

// runAgentCLI runs an agent's own command (argv, never a shell), with a bound on its time.
func runAgentCLI(ctx context.Context, cli string, args []string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w: %s", filepath.Base(cli), strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return nil
}

// entryArgv is the command line an entry runs: command (goose: cmd) and args, or OpenCode's
// command array.
func entryArgv(e map[string]any) []string {
	var argv []string
	add := func(v any) {
		switch v := v.(type) {
		case string:
			argv = append(argv, v)
		case []any:
			for _, x := range v {
				s, _ := x.(string)
				argv = append(argv, s)
			}
		}
	}
	add(e["command"])
	add(e["cmd"])
	add(e["args"])
	return argv
}

// config is one agent config file, parsed.
type config interface {
	entry(servers, name string) (map[string]any, bool)
	set(servers, name string, entry map[string]any) ([]byte, error)
	source() []byte
	document() map[string]any
}

type jsonConfig struct {
	*jsonFile
	jsonc bool
}

func (c jsonConfig) source() []byte           { return c.src }
func (c jsonConfig) document() map[string]any { return c.doc }
func (c jsonConfig) entry(servers, name string) (map[string]any, bool) {
	e, ok := serversOf(c.doc, servers)[name].(map[string]any)
	return e, ok
}
func (c jsonConfig) set(servers, name string, entry map[string]any) ([]byte, error) {
	out, err := c.setEntry(servers, name, entry)
	if err != nil {
		return nil, err
	}
	return out, checkEdit(c, servers, name, entry, out, func(b []byte) (config, error) { return parseConfig(b, c.format()) })
}
func (c jsonConfig) format() adapters.ConfigFormat {
	if c.jsonc {
		return adapters.JSONC
	}
	return adapters.JSON
}

type tomlConfig struct{ *tomlFile }

func (c tomlConfig) source() []byte           { return c.src }
func (c tomlConfig) document() map[string]any { return c.doc }
func (c tomlConfig) entry(servers, name string) (map[string]any, bool) {
	e, ok := serversOf(c.doc, servers)[name].(map[string]any)
	return e, ok
}
func (c tomlConfig) set(servers, name string, entry map[string]any) ([]byte, error) {
	out, err := c.setEntry(servers, name, entry)
	if err != nil {
		return nil, err
	}
	return out, checkEdit(c, servers, name, entry, out, func(b []byte) (config, error) { return parseConfig(b, adapters.TOML) })
}

func parseConfig(src []byte, format adapters.ConfigFormat) (config, error) {
	switch format {
	case adapters.JSON, adapters.JSONC:
		f, err := parseJSONFile(src, format == adapters.JSONC)
		if err != nil {
			return nil, err
		}
		return jsonConfig{f, format == adapters.JSONC}, nil
	case adapters.TOML:
		f, err := parseTOMLFile(src)
		if err != nil {
			return nil, err
		}
		return tomlConfig{f}, nil
	case adapters.YAML:
		f, err := parseYAMLFile(src)
		if err != nil {
			return nil, err
		}
		return yamlConfig{f}, nil
	}
	return nil, fmt.Errorf("no editor for %q files", format)
}

// readConfig reads an agent's config; a file that does not exist is an empty one.
func readConfig(path string, m *adapters.MCP) (config, error) {
	src, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return parseConfig(src, m.Format)
}

// checkEdit parses an edit's result and refuses it unless the only difference from the
// original is servers[name] becoming entry.
func checkEdit(orig config, servers, name string, entry map[string]any, out []byte, parse func([]byte) (config, error)) error {
	after, err := parse(out)
	if err != nil {
		return fmt.Errorf("%w (the edit would not parse: %v)", errShape, err)
	}
	want, got := normal(orig.document()), normal(after.document())
	ws, _ := want[servers].(map[string]any)
	if ws == nil {
		ws = map[string]any{}
		want[servers] = ws
	}
	delete(ws, name)
	if entry != nil {
		ws[name] = normal(entry)
	}
	for _, d := range []map[string]any{want, got} {
		if s, ok := d[servers].(map[string]any); ok && len(s) == 0 {
			delete(d, servers)
		}
	}
	if !reflect.DeepEqual(want, got) {
		return fmt.Errorf("%w (the edit changed more than Pond's entry)", errShape)
	}
	return nil
}

// normal is v as JSON decodes it, so documents from different parsers compare.
func normal(v map[string]any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	dec.Decode(&out)
	if out == nil {
		out = map[string]any{}
	}
	return out
}

// writeConfig replaces path with data atomically, keeping the file's mode and the previous
// content in path.bak.
func writeConfig(path string, before, data []byte) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // a config linked from a dotfiles folder stays linked
	}
	perm := os.FileMode(0o600)
	if st, err := os.Stat(path); err == nil {
		perm = st.Mode().Perm()
		if err := atomicfile.Write(path+".bak", before, perm); err != nil {
			return fmt.Errorf("back up %s: %w", path, err)
		}
	}
	if err := atomicfile.Write(path, data, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// writeSkill installs the recall skill in dir; changed is false when it was already there.
func (o *Options) writeSkill(dir string) (changed bool, err error) {
	p := filepath.Join(dir, skillName, "SKILL.md")
	if b, err := os.ReadFile(p); err == nil && bytes.Equal(b, assets.RecallSkill) {
		return false, nil
	}
	if o.DryRun {
		return true, nil
	}
	if err := atomicfile.Write(p, assets.RecallSkill, 0o644); err != nil {
		return false, fmt.Errorf("recall skill: %w", err)
	}
	return true, nil
}

// removeSkill removes the recall skill's folder, only when it holds nothing but Pond's SKILL.md.
func (o *Options) removeSkill(dir string) (removed bool, err error) {
	folder := filepath.Join(dir, skillName)
	ents, err := os.ReadDir(folder)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	if len(ents) != 1 || ents[0].Name() != "SKILL.md" {
		return false, fmt.Errorf("%s holds more than Pond's SKILL.md: left as it is; remove it yourself", folder)
	}
	if o.DryRun {
		return true, nil
	}
	return true, os.RemoveAll(folder)
}

// Agents reports, for doctor, each agent Pond registers with: wired, stale or absent (and
// skipped for those that get the plugin or are not on this machine).
func Agents(env adapters.Env, exe string) []Agent {
	o := &Options{Exe: exe, Env: env}
	ts, _ := o.targets(nil)
	var out []Agent
	for _, t := range ts {
		a := Agent{Agent: t.name, Outcome: OutcomeSkipped}
		switch m := t.in.MCP; {
		case t.in.Plugin:
			o.pluginDoctor(t, &a)
		case m == nil:
		case !t.detected:
			a.Detail = "not installed here"
		default:
			path, _ := configFile(env, m)
			a.Via = path
			cfg, err := readConfig(path, m)
			if err != nil {
				a.Outcome, a.Error = OutcomeFailed, fmt.Sprintf("%s: %v", path, err)
				break
			}
			e, ok := cfg.entry(m.Servers, ServerName)
			switch {
			case !ok:
				a.Outcome = service.OutcomeAbsent
			case reflect.DeepEqual(entryArgv(e), o.argv()):
				a.Outcome = Wired
			default:
				a.Outcome, a.Detail = Stale, "runs "+strings.Join(entryArgv(e), " ")
			}
		}
		out = append(out, a)
	}
	return out
}
