// Package ipc is how the CLI, the tray and agents reach the daemon: HTTP over a per-user Unix
// socket, with one typed Client method per route, the wire types in ipc/apitype, the
// peer-credential check and the MCP stdio bridge.
package ipc
