// Package daemon is the per-user service and the only writer while it runs: it owns the store
// and the config, runs the sync loop and upkeep, and serves the socket API and MCP.
package daemon
