# Reads restored sessions back through Hermes Agent's own code, all in one Python process (each
# start-up of `hermes` costs seconds to a minute on a loaded machine). Per session it does what
# `hermes chat --resume ID` does before it calls the model (hermes_cli's resume): SessionDB
# opens the profile's state.db (running Hermes's schema set-up and migrations, as the CLI
# does), get_session must find the id, resolve_resume_session_id picks the session the resume
# goes on from (a compression continuation's tip; never a branch or a sub-agent), and
# get_messages_as_conversation(repair_alternation=True) loads its live rows; then the prompt is
# appended as the next user turn and repair_message_sequence runs once more, as the agent does
# before each request. It prints one JSON line per session: {"key", "id" (the session resumed),
# "texts", "calls": [names], "results": n}, or {"key", "error"} when Hermes cannot resume it.
#
# Usage: python hermes-load.py PROMPT < requests, where each line of requests is a JSON object
# {"key", "db": path of a state.db, "id": the session id to resume}. Run with the venv's python
# (scripts/hermes-venv.sh), HERMES_HOME set to a scratch folder.
import json
import sys
from pathlib import Path

from hermes_state import SessionDB
from agent.agent_runtime_helpers import repair_message_sequence

prompt = sys.argv[1]
dbs = {}


def texts_of(content):
    if isinstance(content, str):
        return [content] if content else []
    out = []
    for part in content or []:
        if isinstance(part, dict) and part.get("type") in ("text", "input_text") and part.get("text"):
            out.append(part["text"])
    return out


for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    req = json.loads(line)
    key = req["key"]
    try:
        db = dbs.get(req["db"])
        if db is None:
            db = dbs[req["db"]] = SessionDB(db_path=Path(req["db"]))
        sid = req["id"]
        if not db.get_session(sid):
            raise LookupError(f"Session not found: {sid}")
        sid = db.resolve_resume_session_id(sid) or sid
        history = db.get_messages_as_conversation(sid, repair_alternation=True)
        history = [m for m in history if m.get("role") != "session_meta"]
        if not history:
            raise LookupError(f"Session {sid} found but has no messages")
        msgs = history + [{"role": "user", "content": prompt}]
        repair_message_sequence(None, msgs)
        # A history that ends on the user's turn gets the prompt merged into that turn (Hermes
        # joins consecutive user messages): take the prompt back off, so the turn's own text
        # is counted as the history's and the prompt as the new turn's.
        last = msgs[-1]
        if last.get("role") == "user" and isinstance(last.get("content"), str) and last["content"] != prompt and last["content"].endswith(prompt):
            msgs[-1] = dict(last, content=last["content"][: -len(prompt)].rstrip())
            msgs.append({"role": "user", "content": prompt})
        texts, calls, results = [], [], 0
        for m in msgs:
            role = m.get("role")
            if role == "tool":
                results += 1
                continue
            if role not in ("user", "assistant"):
                continue
            content = m.get("api_content") or m.get("content")
            texts.extend(texts_of(content))
            for tc in m.get("tool_calls") or []:
                fn = tc.get("function") or {}
                calls.append(fn.get("name") or tc.get("name") or "")
        print(json.dumps({"key": key, "id": sid, "texts": texts, "calls": calls, "results": results}), flush=True)
    except Exception as err:  # one session's failure is its own line, never the batch's
        print(json.dumps({"key": key, "error": f"{type(err).__name__}: {err}"}), flush=True)
