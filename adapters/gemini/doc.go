// Package gemini captures Gemini CLI sessions (google-gemini/gemini-cli).
//
// # Where
//
// The CLI keeps one file per session under its home (`~/.gemini`, or `$GEMINI_CLI_HOME/.gemini`):
// `tmp/<project-id>/chats/session-<time>-<id8>.json` (≤0.38, one ConversationRecord rewritten
// whole) or `.jsonl` (≥0.39, append-only), and sub-agent sessions under
// `chats/<parent-session-id>/<session-id>.jsonl`. The project folder is a slug registered in
// `projects.json` and marked by a `.project_root` file, or (≤0.28) the SHA-256 of the project
// root. The project is the path the marker or the registry gives, else a registered path or a
// recorded directory whose hash is the folder's or the record's projectHash, else the folder
// name itself.
//
// # Mapping
//
// A MessageRecord becomes a message (user → user, gemini → assistant, info, error and warning →
// system with the text as content). Its `thoughts` become reasoning parts; its content parts
// become text, reasoning (`thought: true`), file (inlineData bytes, fileData URL), tool_call
// (functionCall) and tool_result (functionResponse) parts; each `toolCalls` entry becomes a
// tool_call part and, once finished (success, error, cancelled), a tool_result part whose result
// is the stored functionResponse and whose failure flag is the status (options.source.status
// keeps it). Every record is kept verbatim in `options.source.record` (with `line` for JSONL);
// metadata, `$set`, `$rewindTo` and unknown records are part-less system messages `rec-<digest>`.
// Records without a timestamp take the previous record's; `$set` takes its `lastUpdated`.
//
// Part ids are `<message id>:<slot>`, where the slot is the part's place in a fixed layout of
// the record: its thoughts, then its content parts, then two slots per tool call (the call, its
// result). A slot is the same in every version of a record, so a rewritten record maps onto the
// parts already archived. The ordinal is the slot, which leaves a gap where a slot holds nothing
// (an empty text, a call still running).
//
// # Replaced records
//
// A JSONL line whose `id` was seen before replaces that message in the CLI (a tool call
// finished, tokens were counted, another call was added to the turn). The archive is
// append-only, so the adapter re-emits the message with the same id (the store keeps the first)
// followed by only the parts whose slots are new; the first of them carries the replacing record
// in `options.source.record` with `options.source.replaces`. A replacement that adds no part (a
// token count) is kept as a system message with `options.source.replaces`. A byte-identical
// repeat adds nothing and is not kept again. A legacy JSON file rewritten with a changed message
// is handled the same way, and its changed top-level metadata becomes a system message with
// `options.source.metadata`.
//
// `Cursor.State` remembers, for the 32 most recently touched messages, the digest of their
// current record and the slots emitted, and the other messages only by a short digest of their
// id. A JSONL replacement of such an older message re-emits all its parts (the store keeps those
// it has) and keeps the record as a system message; in a rewritten legacy file, older messages
// are taken as unchanged (the CLI only ever changes the turn it is working on).
//
// `$rewindTo` never deletes archived messages: it becomes a system message carrying
// `options.source.rewind_to`, and the messages it drops in the CLI stay in the archive. A `$set` carrying a `messages` checkpoint is kept as a system
// message; messages it introduces (turns the CLI made up, such as a compression summary) are
// emitted with injected parts and `options.source.checkpoint` naming the line, and changes it
// makes to known messages add only new parts.
package gemini
