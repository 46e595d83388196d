package view

// SQLResult is a read-only query's bounded answer.
type SQLResult struct {
	Columns   []string         `json:"columns"`
	Rows      []map[string]any `json:"rows"`
	RowCount  int              `json:"row_count"`
	Truncated bool             `json:"truncated"`
	ElapsedMs int64            `json:"elapsed_ms"`
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
