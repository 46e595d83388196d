// Package view holds the read model every face of Pond shares: search requests and results,
// session pages and message details, sync and upkeep reports, the archive's status, restore
// outcomes, model status and the payloads of watch events. The store, the capture engine, the
// daemon and the MCP server produce these values; ipc/apitype carries them on the wire as they
// are, and the CLI and the tray read them. It imports only session, so a face that must not
// link the store (the tray) can still type everything the daemon answers.
package view
