package view

import "time"

// Status is the archive's counts, the adapters, the last sync and the daemon itself.
type Status struct {
	ProtocolVersion int          `json:"protocol_version"`
	Version         string       `json:"version"`
	Sessions        int64        `json:"sessions"`
	Messages        int64        `json:"messages"`
	Parts           int64        `json:"parts"`
	Agents          []AgentCount `json:"agents"`
	LastSync        *LastSync    `json:"last_sync,omitempty"`
	Consent         string       `json:"consent"`
	Adapters        []Adapter    `json:"adapters"`
	Embeddings      Embeddings   `json:"embeddings"`
	Indexes         []TableIndex `json:"indexes"`
	// Limits are the bounds capture keeps to.
	Limits Limits `json:"limits,omitzero"`
	// Upkeep is the daemon's last upkeep run (absent before its first, and without a daemon).
	Upkeep *Upkeep `json:"upkeep,omitempty"`
	// Daemon is set when a daemon answered (absent when the CLI read the store itself).
	Daemon *DaemonInfo `json:"daemon,omitempty"`
	// Redaction is whether secrets are replaced at capture, with the counts per rule;
	// ExcludedProjects the project globs never captured.
	Redaction        *Redaction `json:"redaction,omitempty"`
	ExcludedProjects []string   `json:"excluded_projects,omitempty"`
	// Hosts are the machines whose captures the archive holds (several when they share it on
	// an object store), as far as this machine's mirror has taken them in.
	Hosts []Host `json:"hosts,omitempty"`
	// Storage is where the archive's Lance tables live when not in the data directory (a path,
	// or an object store's location without secrets).
	Storage string `json:"storage,omitempty"`
	// DiskCache is the local cache of an archive on an object store (absent for a local one).
	DiskCache *DiskCache `json:"disk_cache,omitempty"`
}

// DiskCache is the folder where the files of an archive on an object store that Lance never
// changes are kept, so they are read over the network once: what it holds, its bound, and
// how the reads it could answer went since the archive was opened.
type DiskCache struct {
	Dir        string `json:"dir"`
	Files      int64  `json:"files"`
	Bytes      int64  `json:"bytes"`
	LimitBytes int64  `json:"limit_bytes"`
	Hits       int64  `json:"hits"`
	Misses     int64  `json:"misses"`
}

// Host is one machine that writes the archive: its writer number (the high bits of the rows'
// ingest_seq), who it is by its newest capture record, and its share of the archive.
type Host struct {
	Writer      int64  `json:"writer"`
	Hostname    string `json:"hostname"`
	Username    string `json:"username,omitempty"`
	LastCapture string `json:"last_capture,omitempty"`
	Sessions    int64  `json:"sessions"`
	Messages    int64  `json:"messages"`
	// This is the machine answering.
	This bool `json:"this,omitempty"`
}

// Limits are the bounds capture keeps to, so that no agent's file can exhaust memory: a value
// (a text, tool parameters or output, a file, one options entry) larger than ValueBytes is
// stored as a marker recording its size; a line longer than LineBytes, and what a compressed
// source holds beyond DecompressedBytes, are reported as malformed and skipped.
type Limits struct {
	ValueBytes        int64 `json:"value_bytes"`
	LineBytes         int64 `json:"line_bytes"`
	DecompressedBytes int64 `json:"decompressed_bytes"`
}

// AgentCount is one source agent's share of the archive.
type AgentCount struct {
	Agent    string `json:"agent"`
	Sessions int64  `json:"sessions"`
	Messages int64  `json:"messages"`
}

// Embeddings is the semantic-search state: whether it is on, how many messages carry an
// embedding (of any model) and how many searchable ones do not yet.
type Embeddings struct {
	Enabled  bool   `json:"enabled"`
	Model    string `json:"model,omitempty"`
	Embedded int64  `json:"embedded"`
	Pending  int64  `json:"pending"`
}

// TableIndex is one Lance index of a table and how far it covers the table.
type TableIndex struct {
	Table         string `json:"table"`
	Name          string `json:"name"`
	Kind          string `json:"kind"`
	IndexedRows   *int64 `json:"indexed_rows,omitempty"`
	UnindexedRows *int64 `json:"unindexed_rows,omitempty"`
}

// DaemonInfo describes the running daemon.
type DaemonInfo struct {
	PID       int       `json:"pid"`
	StartedAt time.Time `json:"started_at"`
	Epoch     string    `json:"epoch"` // the boot epoch of its watch events
	Syncing   bool      `json:"syncing"`
	// LastError is the last automatic sync's failure, kept until one succeeds.
	LastError string `json:"last_error,omitempty"`
	Watching  int    `json:"watching"` // directories under watch
}

// Adapter is one adapter: configured, enabled, and where its data was found.
type Adapter struct {
	Name       string   `json:"name"`
	Configured bool     `json:"configured"`
	Enabled    bool     `json:"enabled"`
	Path       string   `json:"path,omitempty"`
	Found      []string `json:"found,omitempty"` // default roots that exist here
	Restore    bool     `json:"can_restore"`
	// Consent is the answer that holds for this agent: its own, else the global one.
	Consent string `json:"consent,omitempty"`
}
