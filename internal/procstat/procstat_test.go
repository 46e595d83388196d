package procstat

import (
	"runtime"
	"testing"
)

// The test does a fixed amount of work, never "as much as fits in a deadline": on a busy machine
// a deadline admits less work, and the figures would depend on the load.
func TestCPUAndPeakRSSMove(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("measured on Linux")
	}
	const size = 32 << 20
	buf := make([]byte, size)
	for i := 0; i < size; i += 4096 {
		buf[i] = 1 // touch every page so each one counts as resident
	}
	if rss := PeakRSSMiB(); rss < size>>20 {
		t.Errorf("peak RSS %.1f MiB, want at least the %d MiB just touched", rss, size>>20)
	}

	// Work until the CPU clock moves. The clock only counts time the process really ran, so
	// however long the scheduler keeps it waiting, the loop ends once it has run a while.
	before := CPU()
	sum := 0
	for round := 1; ; round++ {
		for i := 0; i < size; i += 64 {
			sum += int(buf[i])
		}
		if CPU() != before {
			break
		}
		if round == 1<<20 {
			t.Fatalf("CPU stayed at %v over %d passes of work", before, round)
		}
	}
	if sum < size/4096 {
		t.Fatalf("the work loop read %d, want at least one per touched page", sum)
	}
}
