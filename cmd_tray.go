//go:build !headless

package main

import "github.com/spf13/cobra"

// desktopCmds are the commands of the desktop app, which only the full build holds (the
// headless build's are in cmd_tray_headless.go). The desktop app has none yet.
func desktopCmds() []*cobra.Command { return nil }

// desktopBuilt: this build holds the desktop app, so install may start `pond tray` at login.
const desktopBuilt = true
