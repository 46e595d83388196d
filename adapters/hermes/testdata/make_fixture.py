"""Builds the Hermes fixture's stores with Hermes's own SessionDB (hermes-agent, PyPI 0.19.0):
    python make_fixture.py OUT_DIR
writes OUT_DIR/state.sql and OUT_DIR/profiles/work/state.sql, SQL dumps of state.db without the
FTS5 tables and triggers (the test driver may lack FTS5). Run by hand, with the venv that
scripts/hermes-venv.sh makes; the dumps are committed. The work profile's store gets two columns
of Hermes's newer schema (30 upstream) and one unknown column, added by hand, so both versions
are read.
"""
import json
import os
import sqlite3
import sys
import tempfile
from pathlib import Path

from hermes_state import SessionDB

T0 = 1777536000.0  # 2026-04-30T08:00:00Z


def main_profile(path):
    db = SessionDB(db_path=Path(path))
    sid = "20260430_080000_a1b2c3"
    db.create_session(sid, "cli", model="gpt-5.2", model_config={"cwd": "/work/app"}, system_prompt="You are Hermes.", cwd="/work/app")
    t = T0
    def add(s, role, **kw):
        nonlocal t
        t += 1
        return db.append_message(s, role, timestamp=t, **kw)
    add(sid, "user", content="List the files, then read go.mod.")
    add(sid, "assistant", content="Listing.", reasoning="I should list first.",
        tool_calls=[{"id": "call_ls", "type": "function", "function": {"name": "terminal", "arguments": json.dumps({"command": "ls"})}}])
    add(sid, "tool", content="go.mod\nmain.go", tool_call_id="call_ls", tool_name="terminal")
    add(sid, "assistant", content="Two files: go.mod and main.go.", finish_reason="stop")
    add(sid, "user", content=[{"type": "text", "text": "What is in this picture?"},
                             {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}])
    add(sid, "assistant", content="A tiny PNG.")
    # In-place compaction: the live rows become active=0, compacted=1; a summary set goes in.
    db.archive_and_compact(sid, [
        {"role": "user", "content": "[Summary of earlier turns] Listed the files; looked at a picture."},
        {"role": "assistant", "content": "Understood, continuing from the summary."},
    ])
    t += 10
    add(sid, "user", content="Now spawn a helper to count lines.")
    add(sid, "assistant", content="Delegating.",
        tool_calls=[{"id": "call_task", "type": "function", "function": {"name": "delegate_task", "arguments": json.dumps({"goal": "count lines"})}}])
    # A sub-agent: a child session of source 'tool'.
    sub = "20260430_080100_d4e5f6"
    db.create_session(sub, "tool", model="gpt-5.2", parent_session_id=sid, cwd="/work/app")
    add(sub, "user", content="Count lines in main.go.")
    add(sub, "assistant", content="",
        tool_calls=[{"id": "call_wc", "type": "function", "function": {"name": "terminal", "arguments": json.dumps({"command": "wc -l main.go"})}}])
    add(sub, "tool", content="12 main.go", tool_call_id="call_wc", tool_name="terminal")
    add(sub, "assistant", content="main.go has 12 lines.")
    db.end_session(sub, "completed")
    add(sid, "tool", content="main.go has 12 lines.", tool_call_id="call_task", tool_name="delegate_task")
    add(sid, "assistant", content="The helper says 12 lines.")
    # Rewound turn: inactive, not compacted.
    rid = add(sid, "user", content="Oops, ignore this.")
    db._conn.execute("UPDATE messages SET active = 0 WHERE id = ?", (rid,))
    db._conn.commit()
    # A continuation: the parent ended with compression, the child goes on.
    db.end_session(sid, "compression")
    cont = "20260430_090000_0a0b0c"
    db.create_session(cont, "cli", model="gpt-5.2", parent_session_id=sid, cwd="/work/app")
    t += 100
    add(cont, "user", content="Continue: add a README.")
    add(cont, "assistant", content="Added README.md.")
    # A session with no cwd, from the gateway, and a session the legacy snapshot also holds
    # (poorer there: the store's copy wins).
    gw = "20260430_100000_fedcba"
    db.create_session(gw, "telegram", model="gpt-5.2")
    add(gw, "user", content="Hello from Telegram.")
    add(gw, "assistant", content="Hi!")
    db.close()


def work_profile(path):
    db = SessionDB(db_path=Path(path))
    sid = "20260501_120000_abcdef"
    db.create_session(sid, "cli", model="claude-sonnet-4-6", cwd="/work/other")
    db.append_message(sid, "user", content="Explain WAL mode.", timestamp=T0 + 86400)
    db.append_message(sid, "assistant", content="Writers append to a log; readers see a snapshot.", timestamp=T0 + 86401)
    # A branch of it.
    br = "20260501_120500_112233"
    db.create_session(br, "cli", model="claude-sonnet-4-6", parent_session_id=sid, cwd="/work/other",
                      model_config={"_branched_from": sid})
    db.append_message(br, "user", content="Branch: and rollback journals?", timestamp=T0 + 86500)
    db.close()
    con = sqlite3.connect(path)
    # Schema 30's additions and a column no version has: read and kept all the same.
    con.execute("ALTER TABLE messages ADD COLUMN _compressed_summary INTEGER DEFAULT 0")
    con.execute("ALTER TABLE messages ADD COLUMN display_kind TEXT")
    con.execute("ALTER TABLE sessions ADD COLUMN future_column TEXT")
    con.execute("UPDATE messages SET display_kind = 'chat'")
    con.execute("UPDATE sessions SET future_column = 'x'")
    con.commit()
    con.close()


def literal(v):
    if v is None:
        return "NULL"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, bytes):
        return "X'" + v.hex() + "'"
    if "\x00" in v:
        # SQLite's own dump (quote()) stops at a NUL: Hermes's "\x00json:" content prefix is
        # written as hex text.
        return "CAST(X'" + v.encode().hex() + "' AS TEXT)"
    return "'" + v.replace("'", "''") + "'"


def pin_times(db_path):
    """Hermes stamps sessions and compaction summaries with the clock: pin them to the
    messages' fixed times, so that a regenerated fixture differs only where Hermes changed."""
    con = sqlite3.connect(db_path)
    prev = None
    for (mid, ts) in con.execute("SELECT id, timestamp FROM messages ORDER BY id").fetchall():
        if ts > T0 + 10 * 86400 and prev is not None:
            ts = prev + 0.5
            con.execute("UPDATE messages SET timestamp = ? WHERE id = ?", (ts, mid))
        prev = ts
    con.execute("UPDATE sessions SET started_at = (SELECT min(timestamp) FROM messages m WHERE m.session_id = sessions.id) - 1")
    con.execute("UPDATE sessions SET ended_at = (SELECT max(timestamp) FROM messages m WHERE m.session_id = sessions.id) + 1 WHERE ended_at IS NOT NULL")
    con.commit()
    con.close()


def dump(db_path, out):
    """The schema (without the FTS5 tables and triggers, which the test driver may lack), then
    every row of sessions and messages."""
    con = sqlite3.connect(db_path)
    lines = ["BEGIN TRANSACTION;"]
    for (sql,) in con.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'messages_fts%' "
                              "AND name NOT LIKE 'sqlite_%' ORDER BY type = 'table' DESC, name"):
        if sql.startswith("CREATE VIRTUAL TABLE"):
            continue
        lines.append(sql + ";")
    for table in ("schema_version", "sessions", "messages"):
        for row in con.execute(f"SELECT * FROM {table} ORDER BY rowid"):
            lines.append(f'INSERT INTO "{table}" VALUES(' + ",".join(literal(v) for v in row) + ");")
    lines.append("COMMIT;")
    con.close()
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    out = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HERMES_HOME"] = tmp
        a = os.path.join(tmp, "a.db")
        main_profile(a)
        pin_times(a)
        dump(a, os.path.join(out, "state.sql"))
        b = os.path.join(tmp, "b.db")
        work_profile(b)
        pin_times(b)
        dump(b, os.path.join(out, "profiles", "work", "state.sql"))


if __name__ == "__main__":
    main()
