// Unit tests of pi-pond's Pond side, with Node's own runner (node --test, Node >= 23 strips the
// types): the response budget and the path taken when no daemon answers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, DaemonDown, RESPONSE_MAX_BYTES, TRUNCATED_NOTE, clip, mcpSocket } from "../src/pond.ts";
import { TOOLS } from "../src/tools.ts";

test("clip leaves an answer within the budget alone", () => {
	const s = "é".repeat(RESPONSE_MAX_BYTES / 2);
	assert.equal(clip(s), s);
});

test("clip cuts on a character boundary and asks for a narrower query", () => {
	for (const unit of ["a", "é", "€", "😀"]) {
		for (let pad = 0; pad < 4; pad++) {
			const s = "x".repeat(pad) + unit.repeat(RESPONSE_MAX_BYTES + 1);
			const out = clip(s);
			const bytes = Buffer.byteLength(out, "utf8");
			assert.ok(bytes <= RESPONSE_MAX_BYTES, `${unit}+${pad}: ${bytes} bytes`);
			assert.ok(bytes > RESPONSE_MAX_BYTES - 4, `${unit}+${pad}: only ${bytes} bytes kept`);
			assert.ok(out.endsWith("\n" + TRUNCATED_NOTE));
			const body = out.slice(0, -TRUNCATED_NOTE.length - 1);
			assert.ok(!body.includes("\uFFFD"), `${unit}+${pad}: a character was cut`);
			assert.ok(s.startsWith(body));
		}
	}
});

test("no daemon: the tool says how to start it", async () => {
	const dir = mkdtempSync(join(tmpdir(), "pi-pond-"));
	try {
		const c = new Client(mcpSocket({ POND_RUNTIME_DIR: dir }));
		await assert.rejects(c.call("pond_search", { query: "x" }), (e: Error) => {
			assert.ok(e instanceof DaemonDown);
			assert.match(e.message, /no socket at .*mcp\.sock/);
			assert.match(e.message, /pond service start/);
			assert.match(e.message, /pond daemon/);
			return true;
		});
		// A socket nobody serves any more (a daemon that died) is "nothing listening".
		const sock = join(dir, "mcp.sock");
		const srv = createServer().listen(sock);
		await new Promise((r) => srv.once("listening", r));
		srv.close();
		const c2 = new Client(sock);
		await assert.rejects(c2.call("pond_search", { query: "x" }), DaemonDown);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test("bounds are the original's", () => {
	const tool = (n: string) => TOOLS.find((t) => t.name === n)!;
	assert.equal(tool("pond_search").args({ query: "q" }).limit, 10);
	assert.throws(() => tool("pond_search").args({ query: "q", limit: 26 }), /limit/);
	assert.throws(() => tool("pond_search").args({ query: "q".repeat(4097) }), /query/);
	assert.doesNotThrow(() => tool("pond_search").args({ query: "q".repeat(4096), limit: 25 }));
	assert.throws(() => tool("pond_get_session").args({ id: "s", limit: 0 }), /limit/);
	assert.doesNotThrow(() => tool("pond_get_session").args({ id: "s", limit: 1000 }));
	assert.throws(() => tool("pond_get_message").args({ id: "m", context_after: 26 }), /context_after/);
	assert.throws(() => tool("pond_sql").args({ query: "s".repeat(8193) }), /query/);
	assert.throws(() => tool("pond_sql").args({ query: "select 1", timeout_seconds: 601 }), /timeout_seconds/);
	assert.doesNotThrow(() => tool("pond_sql").args({ query: "select 1", timeout_seconds: 600 }));
});
