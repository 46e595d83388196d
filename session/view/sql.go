package view

import "time"

// Time limits of one read-only SQL statement. A statement holds one connection of a small
// pool, and its snapshot keeps the mirror's write-ahead log from being copied back, for as long
// as it runs; an agent's statement (MCP, where text injected into archived content could ask
// for one) gets the lower cap. Both the SQL gate (store/sqlite) and the MCP server use these.
const (
	SQLDefaultTimeout = 30 * time.Second
	SQLMaxTimeout     = 600 * time.Second
	SQLMCPMaxTimeout  = 60 * time.Second
)

// SQLResult is a read-only query's bounded answer.
type SQLResult struct {
	Columns   []string         `json:"columns"`
	Rows      []map[string]any `json:"rows"`
	RowCount  int              `json:"row_count"`
	Truncated bool             `json:"truncated"`
	ElapsedMs int64            `json:"elapsed_ms"`
	// TimeoutSeconds is the timeout the statement ran under, after the caps.
	TimeoutSeconds int `json:"timeout_seconds,omitempty"`
	// Clipped counts cells cut at the mirror's cell bound.
	Clipped int `json:"clipped_cells,omitempty"`
}

// SQLExport is what writing a query's every row to a file did.
type SQLExport struct {
	Format    string `json:"format"`
	Rows      int    `json:"rows"`
	Bytes     int64  `json:"bytes"`
	Truncated bool   `json:"truncated"` // stopped at the export's size cap
	ElapsedMs int64  `json:"elapsed_ms"`
}
