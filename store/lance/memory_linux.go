package lance

/*
#include <malloc.h>
#include <stdlib.h>

// Runs when the program loads, before any thread exists: Lance's runtime threads start during
// the Go packages' initialisation, and each would already hold a heap of its own.
__attribute__((constructor)) static void pond_limit_arenas(void) {
#ifdef M_ARENA_MAX
	if (getenv("MALLOC_ARENA_MAX") == NULL) { // the user's own setting wins
		mallopt(M_ARENA_MAX, 2);
	}
#endif
}
*/
import "C"

// glibc gives every thread that allocates while another holds a heap a heap of its own, up to
// eight per core. Lance's runtime threads then spread their short-lived write buffers over a
// dozen heaps that each keep their freed memory. The constructor above bounds them at two,
// which held the peak of a 2,000-session sync at ~270 MiB instead of 300–325 MiB, in the same
// time (docs/benchmarks.md).

// releaseFreedMemory hands the memory the native code freed back to the system: glibc keeps
// freed blocks in its heaps, so a dropped cache would otherwise still count in the process's
// resident size.
func releaseFreedMemory() { C.malloc_trim(0) }
