// Loads session files with pi's own SessionManager (the code `pi --session <file>` runs) and
// prints, per file, what pi would send to the model: one JSON line
// {"file", "id", "cwd", "roles": [...], "texts": [...], "calls": [names], "results": n}.
// Usage: [PI_PACKAGE=NAME] node pi-load.mjs FILE...   (run from the install, whose node_modules
// it imports). PI_PACKAGE names the pi to load with: @earendil-works/pi-coding-agent (1.x, on
// Node >= 22) or, by default, @mariozechner/pi-coding-agent (0.x).
const { SessionManager } = await import(process.env.PI_PACKAGE || "@mariozechner/pi-coding-agent");

for (const file of process.argv.slice(2)) {
  const sm = SessionManager.open(file);
  const ctx = sm.buildSessionContext();
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
  console.log(JSON.stringify({ file, id: sm.getSessionId(), cwd: sm.getCwd(), roles: ctx.messages.map((m) => m.role), texts, calls, results }));
}
