// Package installer installs Pond into the user's session: the daemon as a login service, the
// tray's autostart entry, and Pond's MCP server in the agents' configs; and removes them again.
package installer
