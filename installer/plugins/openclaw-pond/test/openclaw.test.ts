// Unit tests of openclaw-pond without the host (node --test): the grant each session visibility
// gives a tool context, the tools the factory makes, and the error shape OpenClaw reads. The
// contexts are shaped as OpenClaw 2026.9's OpenClawPluginToolContext; the host tests (the root
// package's TestOpenClaw*) run the same factory inside OpenClaw against a real daemon.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import plugin, { closeAll, failure, tools } from "../index.ts";
import { CODE_FORBIDDEN, DaemonDown, PondError, RESPONSE_MAX_BYTES } from "../src/pond.ts";
import { grant, visibility } from "../src/scope.ts";

const main = { agentId: "work", sessionKey: "agent:work:main", sessionId: "9c8b7a69-5847-4362-a514-030201f0e0d0", workspaceDir: "/work/service" };
const channel = { ...main, sessionKey: "agent:work:telegram:direct:42", sessionId: "1111aaaa-2222-4333-8444-555566667777" };
const sub = { ...main, sessionKey: "agent:work:subagent:5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9", sessionId: "1e2d3c4b-5a69-4788-9706-a5b4c3d2e1f0" };
const vis = (v: string, extra: object = {}) => ({ tools: { sessions: { visibility: v } }, ...extra });

test("visibility defaults to all, as OpenClaw's, and an unknown value is the narrowest", () => {
	assert.equal(visibility({}), "all");
	assert.equal(visibility({ config: vis("agent") }), "agent");
	assert.equal(visibility({ config: vis("everyone") }), "self");
});

test("a sandboxed session is clamped to tree unless sessionToolsVisibility says otherwise", () => {
	assert.equal(visibility({ sandboxed: true }), "tree");
	assert.equal(visibility({ sandboxed: true, config: vis("self") }), "self");
	assert.equal(visibility({ sandboxed: true, config: { agents: { defaults: { sandbox: { sessionToolsVisibility: "all" } } } } }), "all");
});

test("each visibility's scope", () => {
	assert.deepEqual(grant({ ...channel, config: vis("all") }), { visibility: "all", sql: true });
	assert.deepEqual(grant({ ...channel, config: vis("agent") }), { visibility: "agent", sql: false, scope: { source_agent: "openclaw", project: "/work/service" } });
	assert.deepEqual(grant({ ...channel, config: vis("tree") }), {
		visibility: "tree",
		sql: false,
		scope: { source_agent: "openclaw", session: channel.sessionId, tree: true },
	});
	assert.deepEqual(grant({ ...channel, config: vis("self") }), { visibility: "self", sql: false, scope: { source_agent: "openclaw", session: channel.sessionId } });
	// tree from the canonical main session covers the agent's sessions, as OpenClaw's does.
	assert.equal(grant({ ...main, config: vis("tree") })?.visibility, "agent");
	// self stays strict for main.
	assert.equal(grant({ ...main, config: vis("self") })?.visibility, "self");
});

test("no tools where the context cannot be scoped, or is a sub-agent's", () => {
	assert.equal(grant({ ...sub, config: vis("all") }), undefined);
	assert.equal(tools({ ...sub, config: vis("all") }), null);
	assert.equal(grant({ ...channel, sessionId: undefined, config: vis("self") }), undefined);
	assert.equal(grant({ ...channel, workspaceDir: undefined, config: vis("agent") }), undefined);
});

test("pond_sql only at visibility all", () => {
	const names = (v: string) => (tools({ ...channel, config: vis(v) }) ?? []).map((t) => t.name);
	assert.deepEqual(names("all"), ["pond_search", "pond_get_session", "pond_get_message", "pond_sql"]);
	for (const v of ["agent", "tree", "self"]) assert.deepEqual(names(v), ["pond_search", "pond_get_session", "pond_get_message"]);
	closeAll();
});

test("pond_search's description teaches when to recall", () => {
	const search = tools({ ...channel })!.find((t) => t.name === "pond_search")!;
	assert.match(search.description, /When to recall/);
	assert.match(search.description, /from="end"/);
	assert.match(search.description, /pond_sql only for counts/);
	closeAll();
});

test("errors come back as OpenClaw's tools report them", () => {
	const down = failure("pond_search", new DaemonDown("/run/pond/mcp.sock", "no socket", "openclaw-pond"));
	assert.equal(down.details.status, "error");
	assert.equal(down.details.reason, "daemon_down");
	assert.match(down.content[0].text, /pond service start/);
	assert.match(down.content[0].text, /openclaw-pond never opens the archive itself/);
	const out = failure("pond_get_session", new PondError("session x is outside this connection's scope (agent openclaw)", CODE_FORBIDDEN));
	assert.equal(out.details.reason, "outside_scope");
	assert.deepEqual(JSON.parse(out.content[0].text), out.details);
	assert.equal(failure("pond_sql", new Error("query is required")).details.error, "query is required");
});

test("no daemon: the tool answers with how to start it, and bad bounds never reach the socket", async () => {
	const dir = mkdtempSync(join(tmpdir(), "openclaw-pond-"));
	const before = process.env.POND_RUNTIME_DIR;
	process.env.POND_RUNTIME_DIR = dir;
	try {
		const t = tools({ ...channel, config: vis("self") })!;
		const res = await t[0].execute("call-1", { query: "calc_test.go fails" });
		assert.equal((res.details as any).reason, "daemon_down");
		assert.match(res.content[0].text, /no socket at .*mcp\.sock/);
		const bad = await t[0].execute("call-2", { query: "q", limit: 26 });
		assert.match((bad.details as any).error, /limit must be a whole number from 1 to 25/);
		assert.ok(Buffer.byteLength(res.content[0].text) <= RESPONSE_MAX_BYTES);
	} finally {
		closeAll();
		if (before === undefined) delete process.env.POND_RUNTIME_DIR;
		else process.env.POND_RUNTIME_DIR = before;
		rmSync(dir, { recursive: true, force: true });
	}
});

test("the entry registers one factory naming the four tools", () => {
	const calls: any[] = [];
	plugin.register({ registerTool: (f: any, opts: any) => calls.push({ f, opts }) });
	assert.equal(calls.length, 1);
	assert.deepEqual(calls[0].opts.names, ["pond_search", "pond_get_session", "pond_get_message", "pond_sql"]);
	assert.equal(typeof calls[0].f, "function");
	assert.equal(plugin.id, "openclaw-pond");
});
