//go:build headless

package main

// desktopBuilt: a headless build's `pond tray` only says it is not there; install starts no
// tray at login.
const desktopBuilt = false
