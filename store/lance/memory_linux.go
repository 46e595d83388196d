package lance

/*
#include <malloc.h>
*/
import "C"

// releaseFreedMemory hands the memory the native code freed back to the system: glibc keeps
// freed blocks in its heaps, so a dropped cache would otherwise still count in the process's
// resident size.
func releaseFreedMemory() { C.malloc_trim(0) }
