// Loads session files with pi's own SessionManager (the code `pi --session <file>` runs) and
// prints, per file, what pi would send to the model: one JSON line
// {"file", "id", "cwd", "roles": [...], "texts": n, "toolCalls": n, "toolResults": n}.
// Usage: node pi-load.mjs FILE...   (NODE_PATH names the install's node_modules)
import { SessionManager } from "@mariozechner/pi-coding-agent";

for (const file of process.argv.slice(2)) {
  const sm = SessionManager.open(file);
  const ctx = sm.buildSessionContext();
  let texts = 0, toolCalls = 0, toolResults = 0;
  for (const m of ctx.messages) {
    if (m.role === "toolResult") toolResults++;
    const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content ?? []);
    for (const c of content) {
      if (c.type === "text" && c.text && m.role !== "toolResult") texts++;
      if (c.type === "toolCall") toolCalls++;
    }
  }
  console.log(JSON.stringify({ file, id: sm.getSessionId(), cwd: sm.getCwd(), roles: ctx.messages.map((m) => m.role), texts, toolCalls, toolResults }));
}
