// Package config is Pond's one TOML configuration file: capture consent, which adapters are
// enabled and where their agents keep sessions, and the embedding settings. The daemon owns it
// while it runs; without a daemon the CLI edits it under the store lock.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"

	"github.com/BurntSushi/toml"

	"github.com/pondhq/pond/internal/atomicfile"
)

// Consent is the user's answer about capture, for every agent or for one.
//
// The rule, everywhere: automatic capture (the daemon's watcher and periodic sync, `pond serve
// --with-sync`, which agents' plugins launch) reads only the agents whose answer is Granted. A
// `pond sync` the user types reads the agents it names, or the enabled ones, unless their
// answer is Declined; when it was never asked, the sync says how to answer. An agent's answer
// is its own entry under [consent.agents] when it has one, else the global [consent] capture.
//
//	[consent]
//	capture = "declined"          # every agent without an answer of its own
//	[consent.agents]
//	claude-code = "granted"       # pond consent grant --agent claude-code
type Consent string

// Consent states.
const (
	NotAsked Consent = "not_asked"
	Granted  Consent = "granted"
	Declined Consent = "declined"
)

// ParseConsent accepts the CLI's words for a consent state.
func ParseConsent(s string) (Consent, error) {
	switch Consent(s) {
	case NotAsked, Granted, Declined:
		return Consent(s), nil
	case "":
		return NotAsked, nil
	}
	return "", fmt.Errorf("unknown consent %q (want granted, declined or not_asked)", s)
}

// Adapter is one adapter's entry.
type Adapter struct {
	Enabled bool `toml:"enabled"`
	// Path is the agent's own root (the folder discovery would find); empty means discover.
	Path string `toml:"path,omitempty"`
}

// Embeddings configures semantic search.
type Embeddings struct {
	Enabled bool   `toml:"enabled"`
	Model   string `toml:"model,omitempty"`
}

// Config is the whole file.
type Config struct {
	Consent struct {
		Capture Consent `toml:"capture"`
		// Agents holds per-agent answers (a plugin's, or `pond consent grant --agent NAME`), by
		// adapter name.
		Agents map[string]Consent `toml:"agents,omitempty"`
	} `toml:"consent"`
	Adapters    map[string]Adapter `toml:"adapters"`
	Embeddings  Embeddings         `toml:"embeddings"`
	ONNXRuntime struct {
		Library string `toml:"library,omitempty"`
	} `toml:"onnxruntime"`
	Sync struct {
		// IntervalMinutes is the daemon's periodic full sync (default 5).
		IntervalMinutes int `toml:"interval_minutes,omitempty"`
	} `toml:"sync"`
	Privacy Privacy `toml:"privacy"`
	// Storage is absent until `pond storage use` sets it, so existing files stay as they were.
	Storage *Storage `toml:"storage,omitempty"`
}

// Storage says where the archive lives.
//
//	[storage]
//	path = "s3://bucket/pond"
//	cache_mib = 1024   # disk cache of an archive on an object store
type Storage struct {
	// Path is where the Lance archive lives: a local path, s3://bucket/prefix or
	// s3+http(s)://host:port/bucket/prefix; empty: the data directory. The mirror stays in the
	// data directory either way. Credentials never go here: they come from the AWS environment.
	Path string `toml:"path,omitempty"`
	// CacheMiB bounds the disk cache of an archive on an object store: the files Lance never
	// changes (manifests, indexes, data files) kept under the cache directory, so a restart
	// does not read them over the network again. 0: DefaultStorageCacheMiB; negative: none.
	CacheMiB int64 `toml:"cache_mib,omitempty"`
}

// DefaultStorageCacheMiB is the disk cache's bound when the config sets none.
const DefaultStorageCacheMiB = 1024

// StorageCacheMiB is the disk cache's bound in MiB; 0 turns it off.
func (c *Config) StorageCacheMiB() int64 {
	switch {
	case c.Storage == nil || c.Storage.CacheMiB == 0:
		return DefaultStorageCacheMiB
	case c.Storage.CacheMiB < 0:
		return 0
	}
	return c.Storage.CacheMiB
}

// StoragePath is the configured storage location, "" for the data directory.
func (c *Config) StoragePath() string {
	if c.Storage == nil {
		return ""
	}
	return c.Storage.Path
}

// Privacy holds what is kept out of the archive.
//
//	[privacy]
//	exclude_projects = ["~/work/client-x", "/srv/secret-*"]   # never captured
//	redact = true                                             # secrets replaced at capture
type Privacy struct {
	// ExcludeProjects are path globs (filepath.Match syntax, ~ for the home folder) of projects
	// whose sessions are never captured, nor the folders under them.
	ExcludeProjects []string `toml:"exclude_projects,omitempty"`
	// Redact replaces secrets with typed markers at capture (off by default).
	Redact bool `toml:"redact,omitempty"`
}

// Default is the configuration before the user says anything.
func Default() *Config {
	c := &Config{Adapters: map[string]Adapter{}}
	c.Consent.Capture = NotAsked
	c.Sync.IntervalMinutes = 5
	return c
}

// Load reads path; a missing file is the default configuration (exists false).
func Load(path string) (c *Config, exists bool, err error) {
	c = Default()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("config: %w", err)
	}
	md, err := toml.Decode(string(b), c)
	if err != nil {
		return nil, true, fmt.Errorf("config: %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, true, fmt.Errorf("config: %s: unknown key %s", path, und[0])
	}
	if c.Adapters == nil {
		c.Adapters = map[string]Adapter{}
	}
	if _, err := ParseConsent(string(c.Consent.Capture)); err != nil {
		return nil, true, fmt.Errorf("config: %s: %w", path, err)
	}
	if c.Consent.Capture == "" {
		c.Consent.Capture = NotAsked
	}
	for agent, answer := range c.Consent.Agents {
		if _, err := ParseConsent(string(answer)); err != nil {
			return nil, true, fmt.Errorf("config: %s: consent.agents.%s: %w", path, agent, err)
		}
	}
	return c, true, nil
}

// ConsentFor is agent's answer: its own when it has one, else the global one.
func (c *Config) ConsentFor(agent string) Consent {
	if a, ok := c.Consent.Agents[agent]; ok && a != "" && a != NotAsked {
		return a
	}
	return c.Consent.Capture
}

// SetConsent records an answer. With an agent it is that agent's own, and becomes the global
// answer too only while the global one is still NotAsked: a plugin answering for its agent
// never overrides what the user said for all. Without one it is the answer for every agent
// and replaces the agents' own, so that "decline" (or the tray's Pause) stops all capture.
func (c *Config) SetConsent(agent string, answer Consent) {
	if agent == "" {
		c.Consent.Capture = answer
		c.Consent.Agents = nil
		return
	}
	if answer == NotAsked {
		delete(c.Consent.Agents, agent)
		return
	}
	if c.Consent.Agents == nil {
		c.Consent.Agents = map[string]Consent{}
	}
	c.Consent.Agents[agent] = answer
	if c.Consent.Capture == NotAsked {
		c.Consent.Capture = answer
	}
}

// Save writes c to path atomically with mode 0600.
func (c *Config) Save(path string) error {
	var buf bytes.Buffer
	buf.WriteString("# Pond configuration. Edit with `pond adapters`, `pond consent` and `pond config`,\n# or by hand while no Pond daemon runs.\n\n")
	if err := toml.NewEncoder(&buf).Encode(c); err != nil {
		return fmt.Errorf("config: encode: %w", err)
	}
	if err := atomicfile.Write(path, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

// AdapterNames lists the configured adapters, sorted.
func (c *Config) AdapterNames() []string {
	var names []string
	for n := range c.Adapters {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
