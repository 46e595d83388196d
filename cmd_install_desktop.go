//go:build !headless

package main

// desktopBuilt: this build holds the desktop app, so install may start `pond tray` at login.
const desktopBuilt = true
