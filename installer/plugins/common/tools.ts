// The four recall tools as Pi registers them: JSON Schema parameters with the original pi-pond's
// bounds (plain JSON Schema, which Pi validates like TypeBox's, so no host import is needed),
// the same bounds checked again before anything goes to the daemon, and the text teaching the
// model when to recall.
import type { Client } from "./pond.ts";

export const PROMPT_SNIPPET =
	"Search and read the archive of past agent sessions (Claude Code, Codex, OpenCode, Pi, ... - every agent Pond captures)";

export const PROMPT_GUIDELINES = [
	"Use pond_search to find prior work, a decision made earlier or an error seen before, in any agent's past sessions; search before redoing work or when the user refers to an earlier session.",
	"Use pond_get_session to read a session pond_search found; pass from=\"end\" to read its latest state first.",
	"Use pond_sql only for counts across the archive or exact strings inside tool calls and results, which pond_search does not cover.",
];

const str = (maxLength: number, description: string) => ({ type: "string", maxLength, description });
const int = (minimum: number, maximum: number, description: string) => ({ type: "integer", minimum, maximum, description });

export type ToolSpec = {
	name: string;
	label: string;
	description: string;
	parameters: { type: "object"; properties: Record<string, any>; required?: string[]; additionalProperties: false };
	/** args checks the bounds and returns the daemon's arguments; it throws what the model must fix. */
	args: (p: Record<string, any>) => Record<string, any>;
};

export const TOOLS: ToolSpec[] = [
	{
		name: "pond_search",
		label: "Pond search",
		description:
			"Find PAST coding-agent sessions (any agent, kept by Pond) by what was said in them. Returns sessions, best first, with their best messages and message ids. Use distinctive words (an error, a function, a library), not project names. Filters: project (substring of the working directory), session_id, source_agent (e.g. claude-code), from_date/to_date (YYYY-MM-DD). Weak results are not proof of absence: try other words, or pond_sql for exact strings in tool bodies.",
		parameters: {
			type: "object",
			properties: {
				query: str(4096, "distinctive words to find"),
				limit: int(1, 25, "sessions to return (default 10, at most 25)"),
				mode: { type: "string", enum: ["fts", "vector", "hybrid"], description: "fts (default) or vector (only when semantic search is on)" },
				sort_by: { type: "string", enum: ["relevance", "recency"], description: "relevance (default) or recency" },
				project: str(512, "keep sessions whose working directory contains this"),
				session_id: str(512, "search only this session"),
				source_agent: str(512, "only this agent, e.g. claude-code"),
				from_date: str(32, "from this UTC day on, YYYY-MM-DD"),
				to_date: str(32, "up to this UTC day, YYYY-MM-DD"),
			},
			required: ["query"],
			additionalProperties: false,
		},
		args: (p) => {
			need(typeof p.query === "string" && p.query.trim() !== "", "query is required");
			bound(p, "query", 4096);
			for (const k of ["project", "session_id", "source_agent"]) bound(p, k, 512);
			for (const k of ["from_date", "to_date"]) bound(p, k, 32);
			range(p, "limit", 1, 25);
			return { ...p, limit: p.limit ?? 10 };
		},
	},
	{
		name: "pond_get_session",
		label: "Pond session",
		description:
			"Read a past session from Pond's archive, a page of messages at a time: each message's text and one line per tool call and result. id: a session id, or a message id from pond_search (the page starts there). from: start (default) or end (the latest turns first). limit: messages per page (1-1000, default 20). Page on with after_message_id or before_message_id, as the output says.",
		parameters: {
			type: "object",
			properties: {
				id: str(512, "a session id, or a message id"),
				limit: int(1, 1000, "messages per page (default 20)"),
				from: { type: "string", enum: ["start", "end"], description: "start (default) or end" },
				after_message_id: str(512, "the page after this message"),
				before_message_id: str(512, "the page before this message"),
			},
			required: ["id"],
			additionalProperties: false,
		},
		args: (p) => {
			need(typeof p.id === "string" && p.id !== "", "id is required");
			for (const k of ["id", "after_message_id", "before_message_id"]) bound(p, k, 512);
			range(p, "limit", 1, 1000);
			return p;
		},
	},
	{
		name: "pond_get_message",
		label: "Pond message",
		description:
			"Read one archived message in full (tool calls with their arguments, tool results, reasoning) with context_before and context_after neighbouring messages (0-25, default 3). id: a message id from pond_search or pond_get_session; session_id picks a fork when several share it.",
		parameters: {
			type: "object",
			properties: {
				id: str(512, "a message id"),
				session_id: str(512, "the session, when forks share the message id"),
				context_before: int(0, 25, "messages before it (default 3)"),
				context_after: int(0, 25, "messages after it (default 3)"),
			},
			required: ["id"],
			additionalProperties: false,
		},
		args: (p) => {
			need(typeof p.id === "string" && p.id !== "", "id is required");
			for (const k of ["id", "session_id"]) bound(p, k, 512);
			range(p, "context_before", 0, 25);
			range(p, "context_after", 0, 25);
			return p;
		},
	},
	{
		name: "pond_sql",
		label: "Pond SQL",
		description:
			"Run ONE read-only SQL statement (SELECT, WITH or EXPLAIN) over Pond's archive: tables sessions, messages, parts; views tool_calls, session_summary. Use it only for counts across the archive and exact strings inside tool calls and results (parts.variant_data); use pond_search to find sessions. The daemon caps an agent's statement at 60 seconds.",
		parameters: {
			type: "object",
			properties: {
				query: str(8192, "one read-only statement"),
				limit: int(1, 1000, "rows to show (default 100)"),
				timeout_seconds: int(1, 600, "stop the statement after this many seconds (default 30)"),
			},
			required: ["query"],
			additionalProperties: false,
		},
		args: (p) => {
			need(typeof p.query === "string" && p.query.trim() !== "", "query is required");
			bound(p, "query", 8192);
			range(p, "limit", 1, 1000);
			range(p, "timeout_seconds", 1, 600);
			return p;
		},
	},
];

function need(ok: boolean, msg: string) {
	if (!ok) throw new Error(msg);
}

function bound(p: Record<string, any>, key: string, max: number) {
	const v = p[key];
	if (v === undefined) return;
	need(typeof v === "string", `${key} must be a string`);
	need(v.length <= max, `${key} is ${v.length} characters; at most ${max}`);
}

function range(p: Record<string, any>, key: string, min: number, max: number) {
	const v = p[key];
	if (v === undefined) return;
	need(Number.isInteger(v) && v >= min && v <= max, `${key} must be a whole number from ${min} to ${max}`);
}

/** run is a tool's execute: bounds, the daemon's answer as Pi's tool result. */
export async function run(client: Client, spec: ToolSpec, params: Record<string, any>, signal?: AbortSignal) {
	const text = await client.call(spec.name, spec.args(params ?? {}), signal);
	return { content: [{ type: "text" as const, text }], details: { tool: spec.name } };
}
