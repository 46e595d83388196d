// Package resume restores a stored session into an agent's native files (same agent: lossless;
// other agent: reconstructed), never overwriting, and names the command that resumes it.
//
// A restore is planned whole before anything is written: the session and its direct children
// (sub-agents) are read from the archive, a deeper graph is refused, and the target agent's
// encoder turns each into files. Same agent ("native"): the raw source records kept at capture
// (options.source.record) are replayed in source order, so the agent sees the same file, ids and
// tree. Another agent ("foreign"): user and assistant text, tool calls and results are rebuilt
// in the target's idiom under a deterministic id derived from the original, with a first note
// saying where the session came from; reasoning (signed or encrypted by another provider) and
// attachments are dropped. Foreign copies carry a Pond mark (MarkKey) that the target's adapter
// reads back into options.pond.restored_from and a parent link, so search can group or hide the
// copy. Native copies need no mark: they are the original session, with its ids, and re-capture
// converges on the keys already stored.
//
// Resume holds no per-agent code. The agents it restores into are the adapters in adapters/all
// that declare Capabilities().Restore; each implements restore.Encoder in its own package
// (adapters/<agent>/encode.go), on the contract and shared helpers of adapters/restore.
//
// The batch writer creates every file under a temporary name in its final folder, syncs it,
// links it to a name that must not exist (never overwriting) and sets its mtime to now (agents
// purge old files by mtime); a batch that fails removes what it created.
package resume
