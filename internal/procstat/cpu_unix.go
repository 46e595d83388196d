//go:build unix

package procstat

import (
	"syscall"
	"time"
)

// CPU is the CPU time, user and system, every thread of the process has used.
func CPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
