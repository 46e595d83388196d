// Package all lists every adapter Pond ships, explicitly: the only list of agents. Adding an
// agent means its package (which holds everything about it: adapters/README.md, "Adding an
// agent") plus one import and one line here; restore targets, help texts, the store-level
// conformance test, the benchmark corpus and the end-to-end fixture homes follow from this list.
package all

import (
	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/aider"
	"github.com/pondhq/pond/adapters/claudecode"
	"github.com/pondhq/pond/adapters/cline"
	"github.com/pondhq/pond/adapters/codex"
	"github.com/pondhq/pond/adapters/copilot"
	"github.com/pondhq/pond/adapters/cursor"
	"github.com/pondhq/pond/adapters/gemini"
	"github.com/pondhq/pond/adapters/goose"
	"github.com/pondhq/pond/adapters/hermes"
	"github.com/pondhq/pond/adapters/kilo"
	"github.com/pondhq/pond/adapters/openclaw"
	"github.com/pondhq/pond/adapters/opencode"
	"github.com/pondhq/pond/adapters/pi"
	"github.com/pondhq/pond/adapters/qwen"
	"github.com/pondhq/pond/adapters/roocode"
)

// Adapters returns one instance of each adapter, in a stable order.
func Adapters() []adapters.Adapter {
	return []adapters.Adapter{
		claudecode.Adapter{},
		codex.New(),
		gemini.New(),
		opencode.New(),
		pi.New(),
		qwen.Adapter{},
		copilot.Adapter{},
		cline.Adapter{},
		roocode.Adapter{},
		kilo.Adapter{},
		cursor.New(),
		openclaw.New(),
		hermes.New(),
		goose.New(),
		aider.Adapter{},
	}
}

// ByName finds an adapter by its name ("claude-code", "codex-cli", …).
func ByName(name string) (adapters.Adapter, bool) {
	for _, a := range Adapters() {
		if a.Name() == name {
			return a, true
		}
	}
	return nil, false
}

// Names lists every adapter's name.
func Names() []string {
	var out []string
	for _, a := range Adapters() {
		out = append(out, a.Name())
	}
	return out
}
