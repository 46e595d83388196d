package claudecode

import "github.com/pondhq/pond/adapters"

// Describe implements adapters.Describer.
func (Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root:    "the config dir holding projects/ (~/.claude)",
		Fixture: adapters.Fixture{Dir: "adapters/claudecode/testdata"},
	}
}
