// openclaw-pond: Pond's recall tools inside OpenClaw. A thin client of the running Pond daemon
// (its MCP socket); it never opens the archive itself. Tools are made per context by a factory:
// a sub-agent's context gets none, the others get a connection whose scope the daemon binds
// and enforces (src/scope.ts chooses it from OpenClaw's session visibility), and pond_sql only
// at visibility all. No import from OpenClaw, so the entry loads with any 2026.x host.
import { CODE_FORBIDDEN, Client, DaemonDown, PondError, type Scope } from "./src/pond.ts";
import { grant, type ToolContext } from "./src/scope.ts";
import { PROMPT_GUIDELINES, PROMPT_SNIPPET, TOOLS, run, type ToolSpec } from "./src/tools.ts";

export const PLUGIN_ID = "openclaw-pond";

// One connection per scope, shared by the contexts that have it, opened on first use.
const clients = new Map<string, Client>();

function clientFor(scope: Scope | undefined): Client {
	const key = JSON.stringify(scope ?? null);
	let c = clients.get(key);
	if (!c) {
		c = new Client(undefined, { name: PLUGIN_ID, scope });
		clients.set(key, c);
	}
	return c;
}

/** closeAll ends every connection (the plugin's stop, and tests). */
export function closeAll() {
	for (const c of clients.values()) c.close();
	clients.clear();
}

/**
 * failure is a failed call as OpenClaw's own tools report one (jsonResult of {status: "error",
 * tool, error}), so the model reads what to do and the host does not log it as a crash.
 */
export function failure(tool: string, err: unknown) {
	const e = err as Error;
	const out: Record<string, unknown> = { status: "error", tool, error: e?.message ?? String(err) };
	if (err instanceof DaemonDown) out.reason = "daemon_down";
	else if (err instanceof PondError && err.code === CODE_FORBIDDEN) out.reason = "outside_scope";
	return { content: [{ type: "text" as const, text: JSON.stringify(out, null, 2) }], details: out };
}

function describe(spec: ToolSpec): string {
	if (spec.name !== "pond_search") return spec.description;
	return `${PROMPT_SNIPPET}. ${spec.description}\n\nWhen to recall:\n- ${PROMPT_GUIDELINES.join("\n- ")}`;
}

/** tools is what the factory gives a context: none for a sub-agent or an unusable context. */
export function tools(ctx: ToolContext) {
	const g = grant(ctx);
	if (!g) return null;
	const client = clientFor(g.scope);
	return TOOLS.filter((spec) => spec.name !== "pond_sql" || g.sql).map((spec) => ({
		name: spec.name,
		label: spec.label,
		description: describe(spec),
		parameters: spec.parameters,
		promptSnippet: spec.name === "pond_search" ? PROMPT_SNIPPET : undefined,
		promptGuidelines: spec.name === "pond_search" ? PROMPT_GUIDELINES : undefined,
		async execute(_id: string, params: Record<string, any>, signal?: AbortSignal) {
			try {
				return await run(client, spec, params, signal);
			} catch (err) {
				if (signal?.aborted) throw err;
				return failure(spec.name, err);
			}
		},
	}));
}

export default {
	id: PLUGIN_ID,
	name: "Pond",
	description: "Recall past coding-agent sessions from the local Pond archive (pond_search, pond_get_session, pond_get_message, pond_sql)",
	register(api: any) {
		api.registerTool((ctx: ToolContext) => tools(ctx), { names: TOOLS.map((t) => t.name) });
	},
};
