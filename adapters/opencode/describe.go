package opencode

import "github.com/pondhq/pond/adapters"

// Describe implements adapters.Describer.
func (Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root:    "the data dir holding opencode.db or storage/ (~/.local/share/opencode)",
		Fixture: adapters.Fixture{Dir: "adapters/opencode/testdata", Databases: map[string]string{"opencode.db": "opencode.sql"}},
	}
}
