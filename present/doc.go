// Package present turns the read model (session/view) into text: search results, session
// pages and message details, SQL tables, and the reports the CLI prints. The CLI and the MCP
// server render through it, so an agent and a person read the same words; it imports only
// session and session/view, so the tray can use it without linking the store.
package present
