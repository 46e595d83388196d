//go:build pondtest

package main

import "github.com/spf13/cobra"

// addTestFlags adds the daemon's test-only flags. Only a binary built with the pondtest tag
// has them (the end-to-end tests build one with buildPond); a release build cannot be talked
// into opening its sockets to every user.
func addTestFlags(cmd *cobra.Command, openSockets *bool) {
	f := cmd.Flags()
	f.BoolVar(openSockets, "test-open-sockets", false, "tests only: let every user connect, so the peer-uid check answers 403")
	f.MarkHidden("test-open-sockets")
}
