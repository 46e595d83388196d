// pi-pond: Pond's recall tools inside Pi. A thin client of the running Pond daemon (its MCP
// socket); it never opens the archive itself. Types only from the host, so the extension loads
// under @earendil-works/pi-coding-agent and the legacy @mariozechner/pi-coding-agent alike.
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { pondCommand } from "./src/command.ts";
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

	pi.registerCommand("pond", {
		description: "Search your Pond archive; resume a session here or paste a reference to it",
		handler: (args: string, ctx: any) => pondCommand(args, ctx),
	});

	// The footer: "pond ready" while a session with the daemon is open; "pond reconnecting" once
	// it dropped, while a probe retries with back-off; "pond unavailable" when the daemon has not
	// answered for a while (the probe keeps trying, at most once a minute).
	let footer: ((text: string) => void) | undefined;
	let probe: NodeJS.Timeout | undefined;
	let misses = 0;
	let everReady = false;
	function status(ctx?: any) {
		if (ctx?.hasUI) {
			let shown = "";
			footer = (text) => {
				if (text === shown) return;
				shown = text;
				try {
					ctx.ui.setStatus(STATUS_KEY, text);
				} catch {
					footer = undefined; // a ctx Pi has retired; the next session brings its own
				}
			};
		}
		if (client?.connected) {
			misses = 0;
			everReady = true;
			footer?.("pond ready");
		} else {
			footer?.(everReady && misses < 3 ? "pond reconnecting" : "pond unavailable");
		}
		schedule();
	}
	function schedule() {
		if (probe || !client) return;
		const wait = client.connected ? 5_000 : Math.min(60_000, 2_000 * 2 ** misses);
		probe = setTimeout(async () => {
			probe = undefined;
			if (!client) return;
			if (!client.connected) {
				try {
					await client.open();
				} catch {
					misses++;
				}
			}
			status();
		}, wait);
		probe.unref?.();
	}

	// The socket is opened when a session starts and closed when it ends, never in the factory.
	pi.on("session_start", async (_event: unknown, ctx: any) => {
		try {
			await get().open();
		} catch {
			// The daemon may start later; the probe and each tool call retry and say how to start it.
		}
		status(ctx);
		// The one-time consent question, only where someone can answer it; not awaited, so Pi's
		// start-up never waits on the user. Without a daemon it is asked in a later session.
		if (ctx?.hasUI) void askConsent((title, message) => ctx.ui.confirm(title, message)).catch(() => {});
	});
	pi.on("session_shutdown", async () => {
		if (probe) clearTimeout(probe);
		probe = undefined;
		footer = undefined;
		client?.close();
		client = undefined;
	});
}
