package codex

import "github.com/pondhq/pond/adapters"

// Describe implements adapters.Describer.
func (*Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root:    "CODEX_HOME, holding sessions/ (~/.codex)",
		Fixture: adapters.Fixture{Dir: "adapters/codex/testdata/codex"},
	}
}
