//go:build !linux

package daemon

import "runtime"

// residentBytes approximates the resident set by the Go runtime's own memory (native memory
// is not counted off Linux).
func residentBytes() int64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.Sys)
}
