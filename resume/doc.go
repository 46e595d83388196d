// Package resume restores a stored session into an agent's native files (same agent: lossless;
// other agent: reconstructed), never overwriting, and names the command that resumes it.
//
// A restore is planned whole before anything is written: the session and its sub-agents are
// read from the archive, sub-agents of sub-agents are refused, and the target agent's encoder
// turns each into files. A sub-agent is a child of the agent's sub-kind (claude-code/subagent)
// that this machine's adapter captured and that carries no restore mark: forks, continuations,
// captured copies of restores and sessions that came through ingest or import name a parent
// without joining its restore. Same agent ("native"): the raw source records kept at capture
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
// The archive is untrusted (it may hold someone else's export), so nothing in it decides where
// a file goes: encoders check every stored path part (adapters/restore's CheckName, CheckRel),
// session ids must pass session.CheckID, and the writer checks each file once more against the
// agent's folder, never following a link out of it (os.Root), and under --out-dir follows no
// link and enters no folder of another user. A refusal is the unsafe_path status, with nothing
// written. The batch writer creates every file under a temporary name in its final folder,
// syncs it, links it to a name that must not exist (never overwriting) and sets its mtime to now
// (agents purge old files by mtime); a batch that fails removes what it created.
package resume
