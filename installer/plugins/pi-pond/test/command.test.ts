// Unit tests of /pond's pure parts: picker labels from hostile archive text, the reference it
// pastes, which restored file it opens, and Pi's folder. The command end to end runs in Pi itself
// against a real daemon (TestPiPondCommand in the root package).
import { test } from "node:test";
import assert from "node:assert/strict";
import { label, oneLine, piAgentDir, reference, restoredFile } from "../src/command.ts";

test("labels carry no control characters and stay one short line", () => {
	const s = {
		session_id: "s1",
		source_agent: "claude-code",
		project: "/srv/\u001b]0;owned\u0007demo",
		created_at: "2026-11-30T10:00:00Z",
		matches: [{ text: "fix the\nflaky \u001b[31mtest\u001b[0m " + "x".repeat(300) }],
	};
	const l = label(0, s);
	assert.doesNotMatch(l, /[\u0000-\u001f\u007f-\u009f]/);
	assert.ok(l.startsWith("1. 2026-11-30 · claude-code · /srv/ ]0;owned demo — fix the flaky [31mtest [0m"), l);
	assert.ok(Array.from(l).length < 200);
	assert.ok(l.endsWith("…"));
	assert.notEqual(label(0, s), label(1, s));
});

test("oneLine keeps whole characters when it cuts", () => {
	assert.equal(oneLine("😀😀😀😀", 3), "😀😀…");
	assert.equal(oneLine("  a \t b\r\n c  ", 20), "a b c");
});

test("the reference names the session and how to read it", () => {
	const r = reference({ session_id: "abc", source_agent: "codex-cli", project: "/p", created_at: "2026-01-02T00:00:00Z" });
	assert.match(r, /Pond session abc \(codex-cli, \/p, 2026-01-02\)/);
	assert.match(r, /pond_get_session/);
});

test("the restored transcript is the picked session's, not a sub-agent's or a sidecar", () => {
	const out = {
		files: [
			{ path: "/a/child.jsonl", session: "child" },
			{ path: "/a/meta.json", session: "s", sidecar: true },
			{ path: "/a/s.jsonl", session: "s" },
		],
	};
	assert.equal(restoredFile(out, "s"), "/a/s.jsonl");
	assert.equal(restoredFile({ files: [] }, "s"), undefined);
	assert.equal(restoredFile(undefined, "s"), undefined);
});

test("Pi's folder is Pi's: PI_CODING_AGENT_DIR with ~, else ~/.pi/agent", () => {
	assert.equal(piAgentDir({ HOME: "/h" }), "/h/.pi/agent");
	assert.equal(piAgentDir({ HOME: "/h", PI_CODING_AGENT_DIR: "~/pi" }), "/h/pi");
	assert.equal(piAgentDir({ HOME: "/h", PI_CODING_AGENT_DIR: "/x/y" }), "/x/y");
});
