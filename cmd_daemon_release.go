//go:build !pondtest

package main

import "github.com/spf13/cobra"

// addTestFlags adds nothing to a release build: the test-only flags are in
// cmd_daemon_pondtest.go.
func addTestFlags(*cobra.Command, *bool) {}
