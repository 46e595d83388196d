// Reads sessions back from OpenClaw's own databases with OpenClaw's public plugin SDK (its
// transcript runtime reads the events of a session as the Gateway does, and the pi context
// builder OpenClaw ships turns them into what would go to the model) and prints, per session,
// one JSON line {"key", "id", "cwd", "roles", "texts", "calls": [names], "results": n,
// "broken": the parentId where the path from the last entry breaks, if it does}, or
// {"key", "id", "error"} when OpenClaw cannot read it. Run after `openclaw doctor
// --session-sqlite import`, with OPENCLAW_STATE_DIR set to the state dir it imported into.
// Usage: node openclaw-load.mjs AGENT:SESSION_ID...   (run from the install)
import { readSessionTranscriptEvents } from "openclaw/plugin-sdk/session-transcript-runtime";
import { buildSessionContext } from "openclaw/plugin-sdk/agent-sessions";

for (const key of process.argv.slice(2)) {
  const [agentId, sessionId] = key.split(":");
  try {
    const events = await readSessionTranscriptEvents({ agentId, sessionId });
    if (!events?.length) throw new Error("no events");
    const header = events.find((e) => e.type === "session");
    const entries = events.filter((e) => e.type !== "session");
    const ctx = buildSessionContext(entries);
    // Where the path from the last entry up its parents breaks (a parentId naming no entry),
    // which ends the context there.
    const byId = new Map(entries.filter((e) => e.id).map((e) => [e.id, e]));
    let broken = "";
    for (let e = entries.at(-1), hops = 0; e && e.parentId && hops <= entries.length; hops++) {
      const parent = byId.get(e.parentId);
      if (!parent) { broken = e.parentId; break; }
      e = parent;
    }
    const texts = [], calls = [];
    let results = 0;
    for (const m of ctx.messages) {
      if (m.role === "toolResult") results++;
      const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content ?? []);
      for (const c of content) {
        if (c.type === "text" && c.text && m.role !== "toolResult") texts.push(c.text);
        if (c.type === "toolCall") calls.push(c.name);
      }
    }
    console.log(JSON.stringify({ key, id: sessionId, cwd: header?.cwd ?? "", roles: ctx.messages.map((m) => m.role), texts, calls, results, broken }));
  } catch (err) {
    console.log(JSON.stringify({ key, id: sessionId, error: String(err?.message ?? err) }));
  }
}
