//go:build !linux

package lance

// releaseFreedMemory is a no-op where the C library returns freed memory on its own.
func releaseFreedMemory() {}
