package pi

import "github.com/pondhq/pond/adapters"

// Describe implements adapters.Describer.
func (*Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root:    "the agent dir holding sessions/ (~/.pi/agent)",
		Fixture: adapters.Fixture{Dir: "adapters/pi/testdata/agent"},
		// Pi gets Pond's plugin (the plugins issue), never an MCP entry as well.
		Integration: adapters.Integration{Plugin: true},
	}
}
