//go:build headless

package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// desktopCmds: a headless build leaves the desktop app out (it would link GL and X), and its
// `pond tray` says where the full build comes from.
func desktopCmds() []*cobra.Command {
	return []*cobra.Command{{
		Use:   "tray",
		Short: "The desktop app (not in this headless build)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return &exitError{code: 2, err: errors.New("this pond was built headless, without the desktop app; " +
				"build the full binary with `make build` on a machine with the X11 and GL libraries (scripts/apt.sh lists them)")}
		},
	}}
}

// desktopBuilt: a headless build's `pond tray` only says it is not there; install starts no
// tray at login.
const desktopBuilt = false
