// Pi's one-time consent question, through the daemon's HTTP API (pond.sock).
import { api, apiSocket } from "./pond.ts";

/** PI_AGENT is Pond's adapter for Pi's sessions. */
export const PI_AGENT = "pi-coding-agent";
export const CONSENT_QUESTION = "Capture Pi sessions into your Pond archive?";

/**
 * askConsent asks once whether Pond may capture Pi's sessions: only while the daemon has no
 * answer for Pi, and only through confirm (the host's dialog). The answer is recorded for Pi
 * alone (the daemon makes it the global one only while that is still not asked); granted also
 * enables the adapter. A dismissed dialog records nothing, so the question comes back.
 */
export async function askConsent(confirm: (title: string, message: string) => Promise<boolean | undefined>, socketPath: string = apiSocket()) {
	const c = await api("GET", "/v1/consent", undefined, socketPath);
	const mine = c?.agents?.[PI_AGENT];
	if (mine && mine !== "not_asked") return mine as string;
	const ok = await confirm(
		CONSENT_QUESTION,
		"Pond keeps a local, searchable copy of your coding-agent sessions. Pi's would be captured from ~/.pi/agent/sessions. You can change this later with `pond consent`.",
	);
	if (ok === undefined) return "not_asked";
	const answer = ok ? "granted" : "declined";
	await api("POST", "/v1/consent", { capture: answer, agent: PI_AGENT }, socketPath);
	if (ok) await api("POST", "/v1/adapters", { action: "enable", name: PI_AGENT }, socketPath);
	return answer;
}
