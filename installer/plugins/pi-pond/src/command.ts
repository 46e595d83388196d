// The /pond command: search the archive, pick a session, then resume it here in Pi (the daemon
// restores it into Pi's own folder and Pi switches to it) or paste a reference to it into the
// prompt. Everything shown comes from the archive, which holds whatever agents once printed, so
// labels are flattened to one line with control characters removed before Pi's terminal sees them.
import { homedir } from "node:os";
import { join } from "node:path";
import { PI_AGENT } from "./consent.ts";
import { PondError, api, apiSocket } from "./pond.ts";

export const RESUME = "Resume it here in Pi";
export const PASTE = "Paste a reference into the prompt";
const SEARCH_LIMIT = 10;

/** The few members of Pi's command context /pond uses (ExtensionCommandContext). */
export interface CommandContext {
	hasUI: boolean;
	ui: {
		select(title: string, options: string[]): Promise<string | undefined>;
		input(title: string, placeholder?: string): Promise<string | undefined>;
		notify(message: string, type?: "info" | "warning" | "error"): void;
		pasteToEditor(text: string): void;
	};
	switchSession(sessionPath: string, options?: { withSession?: (ctx: CommandContext) => Promise<void> }): Promise<{ cancelled: boolean }>;
}

/** piAgentDir is Pi's folder as Pi resolves it: PI_CODING_AGENT_DIR (with ~), else ~/.pi/agent. */
export function piAgentDir(env: NodeJS.ProcessEnv = process.env): string {
	const home = env.HOME || homedir();
	const dir = env.PI_CODING_AGENT_DIR;
	if (dir) return dir === "~" ? home : dir.startsWith("~/") ? join(home, dir.slice(2)) : dir;
	return join(home, ".pi", "agent");
}

/** oneLine makes archived text safe and short for a picker: no control characters, one line. */
export function oneLine(text: string, max: number): string {
	const flat = (text ?? "").replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").replace(/\s+/g, " ").trim();
	const chars = Array.from(flat);
	return chars.length <= max ? flat : chars.slice(0, max - 1).join("") + "…";
}

type Hits = { session_id: string; project: string; source_agent: string; created_at: string; matches?: { text: string }[] };

/** label is a picker line: its number (labels must differ), day, agent, project, best hit. */
export function label(i: number, s: Hits): string {
	const day = (s.created_at ?? "").slice(0, 10);
	const hit = s.matches?.[0]?.text ?? "";
	return `${i + 1}. ${day} · ${oneLine(s.source_agent, 24)} · ${oneLine(s.project, 48)} — ${oneLine(hit, 80)}`;
}

/** reference is what "paste" puts in the prompt: enough for the model to read the session. */
export function reference(s: Hits): string {
	return `[Pond session ${s.session_id} (${oneLine(s.source_agent, 24)}, ${oneLine(s.project, 80)}, ${(s.created_at ?? "").slice(0, 10)}): read it with pond_get_session, from the end for its latest state]`;
}

/**
 * restoredFile is the transcript a restore wrote for the session picked (not a sub-agent's or a
 * sidecar), from an outcome, or from a refused one whose file exists already (restored before).
 */
export function restoredFile(outcome: any, session: string): string | undefined {
	const files: any[] = outcome?.files ?? [];
	const mine = files.find((f) => f?.session === session && !f?.sidecar) ?? files.find((f) => !f?.sidecar);
	return typeof mine?.path === "string" ? mine.path : undefined;
}

/** resumeHere restores session into Pi's folder through the daemon and returns the file to open. */
export async function resumeHere(session: string, socketPath: string, agentDir: string): Promise<{ file: string; again: boolean }> {
	try {
		const out = await api("POST", "/v1/resume", { session, to: PI_AGENT, root: agentDir }, socketPath);
		const file = restoredFile(out, session);
		if (!file) throw new PondError(`the restore of ${session} wrote no transcript`);
		return { file, again: false };
	} catch (e) {
		// Restored before: the same file is there; nothing was overwritten, so open that one.
		const outcome = (e as PondError).details?.outcome;
		if (e instanceof PondError && (e as PondError).code === "target_exists") {
			const file = restoredFile(outcome, session);
			if (file) return { file, again: true };
		}
		throw e;
	}
}

/** pondCommand runs /pond [query]. */
export async function pondCommand(args: string, ctx: CommandContext, socketPath: string = apiSocket(), agentDir: string = piAgentDir()) {
	if (!ctx.hasUI) return;
	try {
		const query = args.trim() || (await ctx.ui.input("Search Pond", "what you worked on, in any agent"))?.trim();
		if (!query) return;
		const res = await api("POST", "/v1/search", { query, limit: SEARCH_LIMIT }, socketPath);
		const sessions: Hits[] = res?.sessions ?? [];
		if (sessions.length === 0) {
			ctx.ui.notify(`Pond found nothing for "${oneLine(query, 60)}".${res?.hint ? " " + oneLine(res.hint, 120) : ""}`, "info");
			return;
		}
		const labels = sessions.map((s, i) => label(i, s));
		const picked = await ctx.ui.select(`Pond: ${sessions.length} sessions for "${oneLine(query, 60)}"`, labels);
		const s = picked === undefined ? undefined : sessions[labels.indexOf(picked)];
		if (!s) return;
		const action = await ctx.ui.select(oneLine(`${s.source_agent} · ${s.project}`, 100), [RESUME, PASTE]);
		if (action === PASTE) {
			ctx.ui.pasteToEditor(reference(s));
		} else if (action === RESUME) {
			const { file, again } = await resumeHere(s.session_id, socketPath, agentDir);
			// After the switch this ctx is stale (Pi refuses it); the new session's ctx says so.
			const note = again ? "Opened the copy Pond restored earlier." : "Restored from Pond; continue where it left off.";
			await ctx.switchSession(file, { withSession: async (now) => now.ui.notify(note, "info") });
			return;
		}
	} catch (e) {
		ctx.ui.notify((e as Error).message, "error");
	}
}
