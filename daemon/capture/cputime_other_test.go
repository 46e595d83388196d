//go:build !unix

package capture

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
