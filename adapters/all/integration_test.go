package all

import (
	"testing"

	"github.com/pondhq/pond/adapters"
)

// TestIntegration checks that every agent says how Pond plugs into it: an MCP entry (with all
// the installer needs) or the plugin, never both, so no agent sees Pond's tools twice; or, with
// neither, the reason there is none.
func TestIntegration(t *testing.T) {
	env := adapters.Env{GOOS: "linux", Home: "/home/u", Getenv: func(string) string { return "" }}
	for _, a := range Adapters() {
		d, ok := a.(adapters.Describer)
		if !ok {
			continue // TestDescribe reports it
		}
		in := d.Describe().Integration
		switch m := in.MCP; {
		case m != nil && in.Plugin:
			t.Errorf("%s: both an MCP entry and the plugin", a.Name())
		case m == nil && !in.Plugin && in.None == "":
			t.Errorf("%s: neither an MCP entry nor the plugin", a.Name())
		case m != nil:
			if len(m.Configs(env)) == 0 || m.Format == "" || m.Servers == "" || m.Entry == nil {
				t.Errorf("%s: MCP description incomplete: %+v", a.Name(), m)
			}
			if (m.Add == nil) != (m.Remove == nil) {
				t.Errorf("%s: Add and Remove go together", a.Name())
			}
		}
	}
}
