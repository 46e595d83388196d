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
// config, the plugin (recall skill, hooks) the agent loads. Package installer reads it. Its
// fields come with the installer; until then every adapter leaves it zero.
type Integration struct{}
