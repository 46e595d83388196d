"""The Pond side of hermes-pond: where the daemon's MCP socket is, a client for it, and the
response budget. Only the standard library and nothing of Hermes, so its tests run without the
host.

The plugin talks MCP (newline-delimited JSON-RPC) to the daemon's mcp.sock: the daemon renders
each tool's answer as text for a model, the same text every agent gets through `pond mcp`, so
nothing here formats archive data, and nothing here ever opens the archive itself.
"""

import errno
import json
import os
import socket
import stat
import struct
import sys
import tempfile

RESPONSE_MAX_BYTES = 32 * 1024
TRUNCATED_NOTE = (
    "[pond: response truncated to %d bytes; narrow the query or lower limit]" % RESPONSE_MAX_BYTES
)

PROTOCOL_VERSION = "2025-06-18"

# The most of one JSON-RPC line read from the daemon; an answer is clipped to 32 KiB anyway,
# and the daemon's own bounds keep a page far below this.
MAX_LINE_BYTES = 64 * 1024 * 1024


def clip(text, max_bytes=RESPONSE_MAX_BYTES):
    """clip keeps text within max_bytes of UTF-8: when it is longer, the longest prefix that
    ends on a character boundary and leaves room for a newline and the note, then the note."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    note = TRUNCATED_NOTE.encode("utf-8")
    end = max(0, max_bytes - len(note) - 1)
    while end > 0 and (data[end] & 0xC0) == 0x80:  # never cut inside a character
        end -= 1
    return data[:end].decode("utf-8") + "\n" + TRUNCATED_NOTE


def _max_socket_path():
    return 107 if sys.platform.startswith("linux") else 103


def runtime_dir(env=None):
    """runtime_dir is where the daemon listens, resolved as Pond's paths package does:
    POND_RUNTIME_DIR, then $XDG_RUNTIME_DIR/pond on Linux, then "run" in the state directory
    (pond-<uid> in the temp directory when that path is too long for a socket)."""
    env = os.environ if env is None else env
    if env.get("POND_RUNTIME_DIR"):
        return os.path.abspath(env["POND_RUNTIME_DIR"])
    home = env.get("HOME") or os.path.expanduser("~")
    xdg_run = env.get("XDG_RUNTIME_DIR", "")
    if sys.platform.startswith("linux") and os.path.isabs(xdg_run):
        return os.path.join(xdg_run, "pond")
    state = env.get("POND_STATE_DIR")
    if state:
        state = os.path.abspath(state)
    elif sys.platform == "darwin":
        state = os.path.join(home, "Library", "Application Support", "pond", "state")
    else:
        xdg_state = env.get("XDG_STATE_HOME", "")
        base = xdg_state if os.path.isabs(xdg_state) else os.path.join(home, ".local", "state")
        state = os.path.join(base, "pond")
    run = os.path.join(state, "run")
    if len(os.path.join(run, "pond.sock").encode()) <= _max_socket_path():
        return run
    return os.path.join(tempfile.gettempdir(), "pond-%d" % os.getuid())


def mcp_socket(env=None):
    return os.path.join(runtime_dir(env), "mcp.sock")


class DaemonDown(Exception):
    """Nothing answers on the socket. Its message says how to start the daemon."""

    def __init__(self, path, cause):
        super().__init__(
            "Pond's daemon is not running (%s at %s), so the archive cannot be searched right now. "
            "Start it with `pond service start` (after `pond install`), or run `pond daemon` in a "
            "terminal, then retry. hermes-pond never opens the archive itself." % (cause, path)
        )


class PondError(Exception):
    """The daemon answered with an error, or with something that is not Pond's; its text is
    meant for the model."""

    def __init__(self, message):
        super().__init__("pond: " + message)


def _check_runtime_dir(path):
    """The runtime directory must be this user's own and writable by nobody else, as Pond's
    ipc.Dial checks before dialing: another local user's socket is never spoken to."""
    d = os.path.dirname(path)
    try:
        st = os.lstat(d)
    except FileNotFoundError:
        raise DaemonDown(path, "no socket")
    if not stat.S_ISDIR(st.st_mode):
        raise PondError("%s is not a directory (a link?): not connecting" % d)
    if st.st_uid != os.getuid():
        raise PondError("%s belongs to uid %d, not to you: not connecting" % (d, st.st_uid))
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise PondError("%s is writable by other users: not connecting" % d)


def _check_peer(sock, path):
    """On Linux, the server must run as this user (SO_PEERCRED), as Pond's ipc.Dial checks."""
    if not hasattr(socket, "SO_PEERCRED"):
        return
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    if uid != os.getuid():
        raise PondError("the server on %s runs as uid %d, not as you: not connecting" % (path, uid))


def _dial(path, timeout):
    _check_runtime_dir(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
    except OSError as e:
        sock.close()
        if e.errno == errno.ENOENT:
            raise DaemonDown(path, "no socket")
        if e.errno == errno.ECONNREFUSED:
            raise DaemonDown(path, "nothing listening")
        raise DaemonDown(path, e.strerror or str(e))
    try:
        _check_peer(sock, path)
    except Exception:
        sock.close()
        raise
    return sock


class _Session:
    """One MCP session on a connected socket: requests go out as lines, answers come back as
    lines, matched by id; the server's own requests and notifications are skipped."""

    def __init__(self, sock, path):
        self.sock = sock
        self.path = path
        self.buf = b""
        self.next_id = 1

    def send(self, msg):
        self.sock.sendall(json.dumps(msg, ensure_ascii=False).encode("utf-8") + b"\n")

    def line(self):
        while b"\n" not in self.buf:
            if len(self.buf) > MAX_LINE_BYTES:
                raise PondError("an answer longer than %d bytes" % MAX_LINE_BYTES)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                raise PondError("no answer from the daemon in time; try a narrower query")
            except OSError as e:
                raise DaemonDown(self.path, "the connection failed: %s" % (e.strerror or e))
            if not chunk:
                raise DaemonDown(self.path, "the connection closed")
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return line

    def request(self, method, params):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            raw = self.line().strip()
            if not raw:
                continue
            try:
                msg = json.loads(raw.decode("utf-8", errors="replace"))
            except ValueError:
                continue
            if not isinstance(msg, dict) or "method" in msg or msg.get("id") != rid:
                continue
            err = msg.get("error")
            if err is not None:
                text = err.get("message") if isinstance(err, dict) else None
                raise PondError(clip(text if isinstance(text, str) else json.dumps(err)))
            return msg.get("result")


def call(name, args, path=None, timeout=120.0, version="0"):
    """call runs one of Pond's tools on the daemon's MCP socket and returns its text, clipped
    to the response budget. Each call is one short session, so a daemon restarted between calls
    costs nothing. Raises DaemonDown or PondError."""
    path = path or mcp_socket()
    sock = _dial(path, timeout)
    try:
        s = _Session(sock, path)
        s.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "hermes-pond", "version": version},
            },
        )
        s.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        res = s.request("tools/call", {"name": name, "arguments": args})
    finally:
        sock.close()
    if not isinstance(res, dict):
        raise PondError("the daemon's answer to %s has no result" % name)
    parts = res.get("content") or []
    text = "\n".join(
        c["text"] for c in parts if isinstance(c, dict) and c.get("type") == "text" and isinstance(c.get("text"), str)
    )
    if res.get("isError"):
        raise PondError(clip(text))
    return clip(text)
