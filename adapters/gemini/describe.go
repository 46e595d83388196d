package gemini

import "github.com/pondhq/pond/adapters"

// Describe implements adapters.Describer.
func (*Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root:    "the Gemini home holding tmp/ (~/.gemini)",
		Fixture: adapters.Fixture{Dir: "adapters/gemini/testdata/home/.gemini"},
	}
}
