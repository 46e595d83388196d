// Package procstat reads what this process has used: CPU time over every thread (the native
// libraries' included), which benchmarks report and the daemon reads to tell work from quiet
// (daemon/release.go), and the peak resident set.
package procstat

import (
	"os"
	"strconv"
	"strings"
)

// PeakRSSMiB is the process's peak resident set size in MiB (VmHWM), or 0 where the system
// does not report it (outside Linux).
func PeakRSSMiB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
