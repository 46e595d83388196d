package adapters

// Describer is implemented by every adapter in adapters/all (its tests check): what the rest of
// Pond needs to know about the agent besides capture.
type Describer interface {
	Describe() Description
}

// Description is an agent as help texts, tests and the installer see it.
type Description struct {
	// Root says what the adapter's root is, for `pond sync --help`: the folder the agent itself
	// uses, and where it usually is ("the config dir holding projects/ (~/.claude)").
	Root string
	// Restore says, for `pond resume --help`, where a restore into this agent lands when that is
	// not simply the agent's own files under its root ("" when it is).
	Restore string
	// NoRestore says, for an agent Pond only captures from (Capabilities().Restore false), why
	// a stored session cannot be restored into it: `pond resume --to` answers with it.
	NoRestore string
	// Fixture is the adapter's test tree.
	Fixture Fixture
	// Integration is how Pond plugs into the agent.
	Integration Integration
}

// Fixture is an adapter's test tree: an agent root holding one of everything the adapter reads.
// The adapter's own tests, the conformance suite (adapters/adaptertest), the sync engine's
// store-level tests and the end-to-end tests all read it, the last ones from where the agent's
// Roots finds it under a fake home (adaptertest.FixtureHome).
type Fixture struct {
	// Dir is the tree's folder relative to the repository root, laid out as the agent lays out
	// its root: "adapters/codex/testdata/codex".
	Dir string
	// Databases are the SQLite databases the agent keeps, held in the tree as SQL scripts: the
	// database's path → its script's, both relative to Dir. A test builds them when it copies
	// the tree, with a SQLite writer it is given (adapters never link a SQLite driver).
	Databases map[string]string
}

// Integration is where Pond registers itself with the agent: its MCP server in the agent's
// config, or the plugin the agent loads instead, and the folder of skills where Pond's recall
// skill goes. Package installer reads it; an agent gets either MCP or Plugin, never both, so it
// never sees Pond's tools twice.
type Integration struct {
	// MCP is how the agent registers MCP servers at user scope; nil when Pond registers none.
	MCP *MCP
	// Plugin is set when the agent gets Pond's plugin (the same tools, plus consent and resume)
	// instead of an MCP entry.
	Plugin bool
	// None, set instead of MCP and Plugin, says why Pond plugs nothing into the agent (Aider
	// has no MCP client): the installer reports it.
	None string
	// Skills is the agent's user-level folder of skills (one folder per skill holding a
	// SKILL.md), resolved from env; nil when the agent has none.
	Skills func(env Env) string
}

// MCP is where and how an agent keeps its user-scope MCP servers: its own command, used when it
// is on PATH, and the config file the installer edits otherwise.
type MCP struct {
	// CLI is the agent's command ("claude"); empty when it has no command to add a server.
	CLI string
	// Add is the argv after CLI that registers a stdio server name running argv at user scope.
	Add func(name string, argv []string) []string
	// Remove is the argv after CLI that removes the user-scope server name.
	Remove func(name string) []string
	// List is the argv after CLI that lists the servers.
	List []string
	// Configs are the candidate user-scope config files, resolved from env: the first that
	// exists is the agent's, and the first is created when none does.
	Configs func(env Env) []string
	// Format is the config file's format.
	Format ConfigFormat
	// Servers is the top-level key of the servers map ("mcpServers", "mcp", "mcp_servers",
	// goose's "extensions").
	Servers string
	// Entry is the value of one stdio server running argv, as the config file holds it.
	Entry func(argv []string) map[string]any
}

// ConfigFormat is the format of an agent's config file.
type ConfigFormat string

// The formats agents keep their MCP servers in.
const (
	JSON  ConfigFormat = "json"  // strict JSON
	JSONC ConfigFormat = "jsonc" // JSON with comments and trailing commas
	TOML  ConfigFormat = "toml"
	YAML  ConfigFormat = "yaml" // block-style YAML (goose's config.yaml)
)
