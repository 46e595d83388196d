package paths

// Everything Pond keeps is private to its user: directories 0700, files 0600, whatever order
// commands first create them in (`pond model install` may make the data directory before the
// store does) and whatever the umask. Modes only lose bits to the umask, so creating with these
// modes is enough for new entries; MkdirPrivate and ChmodPrivate narrow existing ones.

// Private modes.
const (
	DirMode  = 0o700
	FileMode = 0o600
)
