//go:build !linux

package sqlite

// tempMeasurable is false where a process's unlinked open files cannot be listed: there the
// timeout alone bounds a statement's temporary space.
const tempMeasurable = false

func tempBytes(string) int64 { return 0 }
