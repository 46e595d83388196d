package view

// Drift is how the mirror differs from Lance.
type Drift struct {
	Table         string   `json:"table"`
	Lance         int64    `json:"lance_rows"`
	Mirror        int64    `json:"mirror_rows"`
	MissingMirror []string `json:"missing_in_mirror,omitempty"` // keys in Lance only (first few)
	MissingLance  []string `json:"missing_in_lance,omitempty"`  // keys in the mirror only (first few)
	Duplicates    []string `json:"duplicate_keys,omitempty"`    // keys stored more than once in Lance
}

// OK reports whether the table has no drift.
func (d Drift) OK() bool {
	return d.Lance == d.Mirror && len(d.MissingMirror)+len(d.MissingLance)+len(d.Duplicates) == 0
}
