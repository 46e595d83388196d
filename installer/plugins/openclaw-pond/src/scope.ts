// What an OpenClaw tool context may recall, after OpenClaw's own session visibility
// (tools.sessions.visibility: self / tree / agent / all, docs/gateway/config-tools/
// sessions-and-subagents.md in the openclaw package): the scope the daemon is asked to bind to
// the context's connection, and whether pond_sql is offered. The daemon enforces the scope
// (daemon/mcpserver/scope.go); this file only chooses it. Nothing here imports OpenClaw.
import type { Scope } from "./pond.ts";

export type Visibility = "self" | "tree" | "agent" | "all";

const ORDER: Visibility[] = ["self", "tree", "agent", "all"];

/** SOURCE_AGENT is Pond's name for OpenClaw's sessions (adapters/openclaw). */
export const SOURCE_AGENT = "openclaw";

/** ToolContext is the part of OpenClaw's tool-factory context (OpenClawPluginToolContext) read here. */
export type ToolContext = {
	config?: any;
	agentId?: string;
	sessionKey?: string;
	sessionId?: string;
	workspaceDir?: string;
	sandboxed?: boolean;
};

/** Grant is what a context gets: the scope of its connection (none: the whole archive) and pond_sql or not. */
export type Grant = { visibility: Visibility; scope?: Scope; sql: boolean };

/**
 * visibility is the context's effective session visibility: tools.sessions.visibility (OpenClaw's
 * default is all), clamped to tree in a sandboxed session while
 * agents.defaults.sandbox.sessionToolsVisibility is "spawned" (its default). A value OpenClaw
 * does not define counts as the narrowest.
 */
export function visibility(ctx: ToolContext): Visibility {
	const cfg = ctx.config ?? {};
	const raw = cfg?.tools?.sessions?.visibility ?? "all";
	let v: Visibility = ORDER.includes(raw) ? raw : "self";
	const sandboxVis = cfg?.agents?.defaults?.sandbox?.sessionToolsVisibility ?? "spawned";
	if (ctx.sandboxed && sandboxVis === "spawned" && ORDER.indexOf(v) > ORDER.indexOf("tree")) v = "tree";
	return v;
}

/** isSubagent says the context is a spawned session's (key "agent:<id>:subagent:…", nested too). */
export function isSubagent(ctx: ToolContext): boolean {
	return (ctx.sessionKey ?? "").toLowerCase().split(":").includes("subagent");
}

/** isMain says the key is the agent's canonical main session ("agent:<id>:main"). */
function isMain(key: string | undefined): boolean {
	return /^agent:[^:]+:main$/i.test(key ?? "");
}

/**
 * grant decides a context's tools, or undefined when it gets none: a sub-agent's context, and
 * one that lacks what its visibility needs (a session id for self and tree, a workspace for
 * agent) — failing closed, never open.
 *   self  — the context's own session (its current transcript);
 *   tree  — that session and the sessions it spawned; for the main session, as OpenClaw does,
 *           every session of the agent;
 *   agent — OpenClaw's sessions in the agent's workspace (Pond's project for them);
 *   all   — the whole archive, every agent, and pond_sql.
 */
export function grant(ctx: ToolContext): Grant | undefined {
	if (isSubagent(ctx)) return undefined;
	let v = visibility(ctx);
	if (v === "tree" && isMain(ctx.sessionKey)) v = "agent";
	switch (v) {
		case "all":
			return { visibility: v, sql: true };
		case "agent":
			if (!ctx.workspaceDir) return undefined;
			return { visibility: v, sql: false, scope: { source_agent: SOURCE_AGENT, project: ctx.workspaceDir } };
		case "tree":
		case "self":
			if (!ctx.sessionId) return undefined;
			return { visibility: v, sql: false, scope: { source_agent: SOURCE_AGENT, session: ctx.sessionId, ...(v === "tree" ? { tree: true } : {}) } };
	}
}
