// pi-pond: Pond's recall tools inside Pi. A thin client of the running Pond daemon (its MCP
// socket); it never opens the archive itself. Types only from the host, so the extension loads
// under @earendil-works/pi-coding-agent and the legacy @mariozechner/pi-coding-agent alike.
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { askConsent } from "./src/consent.ts";
import { Client } from "./src/pond.ts";
import { PROMPT_GUIDELINES, PROMPT_SNIPPET, TOOLS, run } from "./src/tools.ts";

const STATUS_KEY = "pond";

export default function piPond(pi: ExtensionAPI) {
	let client: Client | undefined;
	const get = () => (client ??= new Client(undefined, { name: "pi-pond" }));

	for (const spec of TOOLS) {
		pi.registerTool({
			name: spec.name,
			label: spec.label,
			description: spec.description,
			parameters: spec.parameters as any,
			promptSnippet: spec.name === "pond_search" ? PROMPT_SNIPPET : undefined,
			promptGuidelines: spec.name === "pond_search" ? PROMPT_GUIDELINES : undefined,
			async execute(_id: string, params: any, signal: AbortSignal | undefined, _onUpdate: unknown, ctx: any) {
				try {
					return await run(get(), spec, params, signal);
				} finally {
					status(ctx);
				}
			},
		} as any);
	}

	function status(ctx: any) {
		if (!ctx?.hasUI) return;
		ctx.ui.setStatus(STATUS_KEY, client?.connected ? "pond ready" : "pond unavailable");
	}

	// The socket is opened when a session starts and closed when it ends, never in the factory.
	pi.on("session_start", async (_event: unknown, ctx: any) => {
		try {
			await get().open();
		} catch {
			// The daemon may start later; each tool call retries and says how to start it.
		}
		status(ctx);
		// The one-time consent question, only where someone can answer it; not awaited, so Pi's
		// start-up never waits on the user. Without a daemon it is asked in a later session.
		if (ctx?.hasUI) void askConsent((title, message) => ctx.ui.confirm(title, message)).catch(() => {});
	});
	pi.on("session_shutdown", async () => {
		client?.close();
		client = undefined;
	});
}
