#!/usr/bin/env python3
"""Writes goose/sessions/sessions.sql, the fixture's goose database as a SQL script.

The schema is goose's create_schema at schema version 17 (aaif-goose/goose commit
017176d06077b119ade382d3bb710e56c8c04e90, crates/goose/src/session/session_manager.rs), plus
the thread_id column and threads tables a store migrated through v10 has. The rows are shaped
as goose's serde writes them (crates/goose/src/conversation/message.rs). Run it from this
folder; the script is the source, the .sql its output (checked in, read by the tests).
"""
import json

T0 = 1777626000  # 2026-05-01 09:00:00 UTC


def q(v):
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, (int, float)):
        return repr(v)
    return "'" + str(v).replace("'", "''") + "'"


def j(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def text(t):
    return {"type": "text", "text": t}


def request(i, name, args):
    return {"type": "toolRequest", "id": i, "toolCall": {"status": "success", "value": {"name": name, "arguments": args}}}


def response(i, out, is_error=False):
    return {"type": "toolResponse", "id": i, "toolResult": {"status": "success", "value": {"content": [text(out)], "isError": is_error}}}


VIS = {"userVisible": True, "agentVisible": True}
HIDDEN_FROM_AGENT = {"userVisible": True, "agentVisible": False}
AGENT_ONLY = {"userVisible": False, "agentVisible": True}

sessions = []
messages = []


def session(sid, name, kind, wd, created, parent=None, **kw):
    row = dict(id=sid, name=name, description="", user_set_name=False, session_type=kind, working_dir=wd,
               created_at=created, updated_at=created, extension_data=kw.pop("extension_data", "{}"),
               total_tokens=None, input_tokens=None, output_tokens=None, cache_read_tokens=None, cache_write_tokens=None,
               accumulated_total_tokens=None, accumulated_input_tokens=None, accumulated_output_tokens=None,
               accumulated_cache_read_tokens=None, accumulated_cache_write_tokens=None, accumulated_cost=None,
               schedule_id=None, recipe_json=None, user_recipe_values_json=None, provider_name="anthropic",
               model_config_json=j({"model_name": "claude-sonnet-4-5", "context_limit": None, "temperature": None,
                                    "max_tokens": None, "toolshim": False, "toolshim_model": None}),
               goose_mode="auto", archived_at=None, project_id=None, parent_session_id=parent, parent_delegation=None,
               thread_id=None)
    row.update(kw)
    sessions.append(row)


def msg(sid, role, content, ts, meta=VIS, uuid="00000000-0000-4000-8000-000000000000"):
    messages.append(dict(id=len(messages) + 1, message_id=f"msg_{sid}_{uuid[:-4]}{len(messages) + 1:04d}", session_id=sid,
                         role=role, content_json=j(content), created_timestamp=ts, timestamp="2026-05-01 09:00:00",
                         tokens=None, metadata_json=j(meta) if meta is not None else None))


# A user session: thinking, a tool call answered in the same second, an image, a compaction
# (the rows it replaced hidden from the agent, its summary hidden from the user), a system
# notification, an unknown block, a millisecond timestamp, the tool-approval blocks.
S1 = "20260501_1"
session(S1, "Fix the flaky test", "user", "/home/dev/proj", "2026-05-01 09:00:00",
        accumulated_total_tokens=5400, accumulated_input_tokens=5000, accumulated_output_tokens=400, accumulated_cost=0.021,
        extension_data=j({"todo.v0": {"content": "- [x] find the race"}}))
msg(S1, "user", [text("The test TestWatch fails one run in ten. Find out why.")], T0 + 1, HIDDEN_FROM_AGENT)
msg(S1, "assistant", [{"type": "thinking", "thinking": "Probably a timing assumption in the watcher.", "signature": "sig-1"},
                      text("Let me look at the test first."),
                      request("toolu_01", "developer__shell", {"command": "grep -n Sleep watch_test.go"})], T0 + 5, HIDDEN_FROM_AGENT)
msg(S1, "user", [response("toolu_01", "42:\ttime.Sleep(10 * time.Millisecond)")], T0 + 5, HIDDEN_FROM_AGENT)
msg(S1, "assistant", [text("Line 42 sleeps 10 ms and assumes the event arrived by then.")], T0 + 9, HIDDEN_FROM_AGENT)
msg(S1, "user", [{"type": "text", "text": "Here is the CI log."}, {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}], T0 + 30)
msg(S1, "user", [text("Summary of the conversation so far: the flaky test sleeps 10 ms at line 42 instead of waiting for the event.")], T0 + 31, AGENT_ONLY)
msg(S1, "assistant", [{"type": "systemNotification", "notificationType": "inlineMessage", "msg": "Context compacted"}], T0 + 31, {"userVisible": True, "agentVisible": False})
msg(S1, "assistant", [text("I will replace the sleep with a wait on the channel."),
                      request("toolu_02", "developer__text_editor", {"command": "str_replace", "path": "watch_test.go", "old_str": "time.Sleep(10 * time.Millisecond)", "new_str": "<-events"})], T0 + 40)
msg(S1, "user", [{"type": "actionRequired", "data": {"actionType": "toolConfirmation", "id": "toolu_02", "toolName": "developer__text_editor", "arguments": {}, "prompt": None}}], T0 + 40, {"userVisible": True, "agentVisible": False})
msg(S1, "user", [response("toolu_02", "The file watch_test.go has been edited")], T0 + 41)
msg(S1, "assistant", [{"type": "futureBlock", "payload": 1}, text("Fixed: the test now waits for the event.")], (T0 + 45) * 1000)

# A sub-agent of S1, with a failed call and a call goose could not parse.
S2 = "20260501_2"
session(S2, "Check the other tests", "sub_agent", "/home/dev/proj", "2026-05-01 09:00:20", parent=S1,
        parent_delegation=j({"execution_mode": "foreground", "parent_delegate_message_id": f"msg_{S1}_x", "result_delivered_to_parent": True}))
msg(S2, "user", [text("Look for other sleeps in the tests.")], T0 + 20, AGENT_ONLY)
msg(S2, "assistant", [request("toolu_11", "developer__shell", {"command": "grep -rn Sleep ./..."}),
                      {"type": "toolRequest", "id": "toolu_12", "toolCall": {"status": "error", "error": "-32602: invalid JSON in arguments"}}], T0 + 21)
msg(S2, "user", [{"type": "toolResponse", "id": "toolu_11", "toolResult": {"status": "error", "error": "-32603: grep: ./...: No such file or directory"}},
                 {"type": "toolResponse", "id": "toolu_12", "toolResult": {"status": "error", "error": "-32602: invalid JSON in arguments"}}], T0 + 21)
msg(S2, "assistant", [text("No other sleeps found.")], T0 + 22)

# A scheduled run, an ACP session, a hidden one, a gateway one and a terminal one (no messages):
# every type is captured.
S3 = "20260501_3"
session(S3, "Nightly report", "scheduled", "/home/dev/proj", "2026-05-01 23:00:00", schedule_id="nightly-report")
msg(S3, "user", [text("Summarise today's commits.")], T0 + 50400)
msg(S3, "assistant", [{"type": "reasoning", "text": "Old goose wrote reasoning blocks."}, text("Three commits, all tests green.")], T0 + 50410)
session("20260502_1", "ACP Session", "acp", "/home/dev/other", "2026-05-02 08:00:00", archived_at="2026-05-03 08:00:00")
msg("20260502_1", "user", [text("hello from the editor")], T0 + 82800)
msg("20260502_1", "assistant", [text("Hello! What shall we work on?")], T0 + 82801, None)
session("20260502_2", "", "terminal", "/home/dev/proj", "2026-05-02 09:00:00")
session("20260502_3", "title generation", "hidden", "/home/dev/proj", "2026-05-02 09:05:00")
msg("20260502_3", "user", [text("Name this conversation in four words.")], T0 + 86700)
session("20260502_4", "Telegram chat", "gateway", "/home/dev", "2026-05-02 10:00:00")
msg("20260502_4", "user", [text("status of the nightly build?")], T0 + 90000)
msg("20260502_4", "assistant", [text("It passed at 23:01.")], T0 + 90002)


out = ["PRAGMA foreign_keys=OFF;", "BEGIN TRANSACTION;",
       "CREATE TABLE schema_version (\n    version INTEGER PRIMARY KEY,\n    applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP\n);"]
for v in range(1, 18):
    out.append(f"INSERT INTO schema_version VALUES({v},'2026-04-01 00:00:00');")
cols = list(sessions[0].keys())
out.append("CREATE TABLE sessions (\n    " + ",\n    ".join([
    "id TEXT PRIMARY KEY", "name TEXT NOT NULL DEFAULT ''", "description TEXT NOT NULL DEFAULT ''",
    "user_set_name BOOLEAN DEFAULT FALSE", "session_type TEXT NOT NULL DEFAULT 'user'", "working_dir TEXT NOT NULL",
    "created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP", "updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP",
    "extension_data TEXT DEFAULT '{}'", "total_tokens INTEGER", "input_tokens INTEGER", "output_tokens INTEGER",
    "cache_read_tokens INTEGER", "cache_write_tokens INTEGER", "accumulated_total_tokens INTEGER",
    "accumulated_input_tokens INTEGER", "accumulated_output_tokens INTEGER", "accumulated_cache_read_tokens INTEGER",
    "accumulated_cache_write_tokens INTEGER", "accumulated_cost REAL", "schedule_id TEXT", "recipe_json TEXT",
    "user_recipe_values_json TEXT", "provider_name TEXT", "model_config_json TEXT",
    "goose_mode TEXT NOT NULL DEFAULT 'auto'", "archived_at TIMESTAMP", "project_id TEXT", "parent_session_id TEXT",
    "parent_delegation TEXT", "thread_id TEXT"]) + "\n);")
out.append("""CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id TEXT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content_json TEXT NOT NULL,
    created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    tokens INTEGER,
    metadata_json TEXT
);
CREATE TABLE usage_ledger (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    created_timestamp INTEGER NOT NULL,
    model TEXT,
    input_tokens INTEGER,
    output_tokens INTEGER,
    total_tokens INTEGER,
    cache_read_tokens INTEGER,
    cache_write_tokens INTEGER,
    cost REAL,
    cost_source TEXT,
    is_compaction INTEGER DEFAULT 0
);
CREATE TABLE threads (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL DEFAULT 'New Chat',
    user_set_name BOOLEAN DEFAULT FALSE,
    working_dir TEXT,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    archived_at TIMESTAMP,
    metadata_json TEXT DEFAULT '{}'
);""")
for s in sessions:
    out.append("INSERT INTO sessions (" + ",".join(cols) + ") VALUES(" + ",".join(q(s[c]) for c in cols) + ");")
mcols = list(messages[0].keys())
for m in messages:
    out.append("INSERT INTO messages (" + ",".join(mcols) + ") VALUES(" + ",".join(q(m[c]) for c in mcols) + ");")
out.append("INSERT INTO usage_ledger VALUES(1,'20260501_1',1777626005,'claude-sonnet-4-5',5000,400,5400,NULL,NULL,0.021,'estimated',0);")
out += ["CREATE INDEX idx_messages_session ON messages(session_id);",
        "CREATE INDEX idx_messages_session_created ON messages(session_id, created_timestamp, id);",
        "CREATE INDEX idx_sessions_type ON sessions(session_type);",
        "CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);",
        "COMMIT;"]
open("goose/sessions/sessions.sql", "w").write("\n".join(out) + "\n")
