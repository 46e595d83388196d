package procstat

import (
	"runtime"
	"testing"
	"time"
)

func TestCPUAndPeakRSSMove(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("measured on Linux")
	}
	before := CPU()
	deadline := time.Now().Add(50 * time.Millisecond)
	buf := make([]byte, 32<<20)
	for i := 0; time.Now().Before(deadline); i++ {
		buf[(i*4096)%len(buf)]++ // touch the pages so they count as resident
	}
	if used := CPU() - before; used <= 0 {
		t.Errorf("CPU did not grow over 50 ms of work: %v", used)
	}
	if rss := PeakRSSMiB(); rss < 32 {
		t.Errorf("peak RSS %.1f MiB, want at least the 32 MiB just touched", rss)
	}
}
