"""The four recall tools as Hermes registers them: their schemas with the original hermes-pond's
bounds, the same bounds checked again before anything goes to the daemon, and the handlers,
which answer Hermes with a JSON string: {"status": "ok", "text": ...} or
{"status": "error", "error": ...}. Nothing here imports Hermes."""

import json

from . import pond

TOOLSET = "pond"

# GUIDANCE teaches the model when to recall; pond_search carries it in its description, the
# one place every Hermes model reads.
GUIDANCE = (
    " Use it to find prior work, a decision made earlier or an error seen before, in any agent's "
    "past sessions on any machine Pond archives; search before redoing work or when the user refers "
    "to an earlier session. Read a session it finds with pond_get_session, from=\"end\" first for its "
    "latest state. Use pond_sql only for counts across the archive or exact strings inside tool "
    "calls and results."
)


class BadArgs(ValueError):
    """What the model must fix in its call."""


def _str(max_len, description):
    return {"type": "string", "maxLength": max_len, "description": description}


def _int(lo, hi, description):
    return {"type": "integer", "minimum": lo, "maximum": hi, "description": description}


def _need(ok, message):
    if not ok:
        raise BadArgs(message)


def _bound(p, key, max_len):
    v = p.get(key)
    if v is None:
        return
    _need(isinstance(v, str), "%s must be a string" % key)
    _need(len(v) <= max_len, "%s is %d characters; at most %d" % (key, len(v), max_len))


def _range(p, key, lo, hi):
    v = p.get(key)
    if v is None:
        return
    # A bool is an int to Python, not to the model.
    _need(isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi,
          "%s must be a whole number from %d to %d" % (key, lo, hi))


def _only(p, allowed):
    extra = sorted(set(p) - set(allowed))
    _need(not extra, "unknown argument%s %s" % ("s" if len(extra) > 1 else "", ", ".join(extra)))


def _search_args(p):
    _only(p, SEARCH["parameters"]["properties"])
    _need(isinstance(p.get("query"), str) and p["query"].strip() != "", "query is required")
    _bound(p, "query", 4096)
    for k in ("project", "session_id", "source_agent", "mode", "sort_by"):
        _bound(p, k, 512)
    for k in ("from_date", "to_date"):
        _bound(p, k, 32)
    _range(p, "limit", 1, 25)
    out = dict(p)
    out.setdefault("limit", 10)
    return out


def _session_args(p):
    _only(p, SESSION["parameters"]["properties"])
    _need(isinstance(p.get("id"), str) and p["id"] != "", "id is required")
    for k in ("id", "after_message_id", "before_message_id", "from"):
        _bound(p, k, 512)
    _range(p, "limit", 1, 1000)
    return dict(p)


def _message_args(p):
    _only(p, MESSAGE["parameters"]["properties"])
    _need(isinstance(p.get("id"), str) and p["id"] != "", "id is required")
    for k in ("id", "session_id"):
        _bound(p, k, 512)
    _range(p, "context_before", 0, 25)
    _range(p, "context_after", 0, 25)
    return dict(p)


def _sql_args(p):
    _only(p, SQL["parameters"]["properties"])
    _need(isinstance(p.get("query"), str) and p["query"].strip() != "", "query is required")
    _bound(p, "query", 8192)
    _range(p, "limit", 1, 1000)
    _range(p, "timeout_seconds", 1, 600)
    return dict(p)


SEARCH = {
    "name": "pond_search",
    "description": (
        "Find PAST coding-agent sessions (any agent, kept by Pond) by what was said in them. Returns "
        "sessions, best first, with their best messages and message ids. Use distinctive words (an "
        "error, a function, a library), not project names. Filters: project (substring of the working "
        "directory), session_id, source_agent (e.g. claude-code), from_date/to_date (YYYY-MM-DD). Weak "
        "results are not proof of absence: try other words, or pond_sql for exact strings in tool bodies."
        + GUIDANCE
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "query": _str(4096, "distinctive words to find"),
            "limit": _int(1, 25, "sessions to return (default 10, at most 25)"),
            "mode": {"type": "string", "enum": ["fts", "vector", "hybrid"],
                     "description": "fts (default) or vector (only when semantic search is on)"},
            "sort_by": {"type": "string", "enum": ["relevance", "recency"],
                        "description": "relevance (default) or recency"},
            "project": _str(512, "keep sessions whose working directory contains this"),
            "session_id": _str(512, "search only this session"),
            "source_agent": _str(512, "only this agent, e.g. claude-code"),
            "from_date": _str(32, "from this UTC day on, YYYY-MM-DD"),
            "to_date": _str(32, "up to this UTC day, YYYY-MM-DD"),
        },
        "required": ["query"],
    },
}

SESSION = {
    "name": "pond_get_session",
    "description": (
        "Read a past session from Pond's archive, a page of messages at a time: each message's text and "
        "one line per tool call and result. id: a session id, or a message id from pond_search (the page "
        "starts there). from: start (default) or end (the latest turns first). limit: messages per page "
        "(1-1000, default 20). Page on with after_message_id or before_message_id, as the output says."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "id": _str(512, "a session id, or a message id"),
            "limit": _int(1, 1000, "messages per page (default 20)"),
            "from": {"type": "string", "enum": ["start", "end"], "description": "start (default) or end"},
            "after_message_id": _str(512, "the page after this message"),
            "before_message_id": _str(512, "the page before this message"),
        },
        "required": ["id"],
    },
}

MESSAGE = {
    "name": "pond_get_message",
    "description": (
        "Read one archived message in full (tool calls with their arguments, tool results, reasoning) "
        "with context_before and context_after neighbouring messages (0-25, default 3). id: a message id "
        "from pond_search or pond_get_session; session_id picks a fork when several share it."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "id": _str(512, "a message id"),
            "session_id": _str(512, "the session, when forks share the message id"),
            "context_before": _int(0, 25, "messages before it (default 3)"),
            "context_after": _int(0, 25, "messages after it (default 3)"),
        },
        "required": ["id"],
    },
}

SQL = {
    "name": "pond_sql",
    "description": (
        "Run ONE read-only SQL statement (SELECT, WITH or EXPLAIN) over Pond's archive: tables sessions, "
        "messages, parts; views tool_calls, session_summary. Use it only for counts across the archive and "
        "exact strings inside tool calls and results (parts.variant_data); use pond_search to find sessions. "
        "The daemon caps an agent's statement at 60 seconds."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "query": _str(8192, "one read-only statement"),
            "limit": _int(1, 1000, "rows to show (default 100)"),
            "timeout_seconds": _int(1, 600, "stop the statement after this many seconds (default 30)"),
        },
        "required": ["query"],
    },
}

# TOOLS: each tool's schema and the function that checks its arguments and returns the
# daemon's.
TOOLS = [(SEARCH, _search_args), (SESSION, _session_args), (MESSAGE, _message_args), (SQL, _sql_args)]


def ok(text):
    return json.dumps({"status": "ok", "text": text}, ensure_ascii=False)


def error(message):
    return json.dumps({"status": "error", "error": pond.clip(message)}, ensure_ascii=False)


def _timeout(args):
    # The daemon stops an agent's statement at 60 s whatever it asks for; the socket waits a
    # little longer than the statement may run, so the daemon's own answer arrives first.
    t = args.get("timeout_seconds") if isinstance(args.get("timeout_seconds"), int) else 30
    return float(min(t, 60) + 60)


def handler(schema, check, socket_path=None):
    """handler is one tool's handler as Hermes calls it, handler(args, **kw): the bounds, then
    the daemon's answer, always as a JSON string; it never raises."""
    name = schema["name"]

    def run(args=None, **_kw):
        try:
            if isinstance(args, str):  # a model's arguments still as JSON text
                args = json.loads(args) if args.strip() else {}
            if args is None:
                args = {}
            if not isinstance(args, dict):
                raise BadArgs("arguments must be an object")
            sent = check(args)
            return ok(pond.call(name, sent, path=socket_path or pond.mcp_socket(), timeout=_timeout(sent)))
        except BadArgs as e:
            return error("%s: %s" % (name, e))
        except (pond.DaemonDown, pond.PondError) as e:
            return error(str(e))
        except ValueError as e:
            return error("%s: arguments are not JSON: %s" % (name, e))
        except Exception as e:  # a handler that raises would take the host's turn with it
            return error("%s failed: %s: %s" % (name, type(e).__name__, e))

    run.__name__ = name
    return run
