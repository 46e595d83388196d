"""Unit tests of hermes-pond without Hermes (python -m unittest discover -s tests): the response
budget, the bounds, the JSON the handlers answer, the path taken when no daemon answers, and the
socket checks. Hermes itself loads the plugin against a real daemon in the Go tests."""

import json
import os
import socket
import tempfile
import threading
import unittest

from hermes_pond import pond, tools


def handler(name, socket_path):
    for schema, check in tools.TOOLS:
        if schema["name"] == name:
            return tools.handler(schema, check, socket_path=socket_path)
    raise KeyError(name)


def check(name):
    for schema, c in tools.TOOLS:
        if schema["name"] == name:
            return c
    raise KeyError(name)


class ClipTest(unittest.TestCase):
    def test_within_budget_is_left_alone(self):
        s = "é" * (pond.RESPONSE_MAX_BYTES // 2)
        self.assertEqual(pond.clip(s), s)

    def test_cuts_on_a_character_boundary_and_asks_for_a_narrower_query(self):
        for unit in ("a", "é", "€", "😀"):
            for pad in range(4):
                with self.subTest(unit=unit, pad=pad):
                    s = "x" * pad + unit * (pond.RESPONSE_MAX_BYTES + 1)
                    out = pond.clip(s)
                    n = len(out.encode("utf-8"))
                    self.assertLessEqual(n, pond.RESPONSE_MAX_BYTES)
                    self.assertGreater(n, pond.RESPONSE_MAX_BYTES - 4, "too little kept")
                    self.assertTrue(out.endswith("\n" + pond.TRUNCATED_NOTE))
                    body = out[: -len(pond.TRUNCATED_NOTE) - 1]
                    self.assertNotIn("\ufffd", body)
                    self.assertTrue(s.startswith(body))

    def test_error_answers_are_clipped_too(self):
        out = json.loads(tools.error("€" * pond.RESPONSE_MAX_BYTES))
        self.assertEqual(out["status"], "error")
        self.assertLessEqual(len(out["error"].encode("utf-8")), pond.RESPONSE_MAX_BYTES)
        self.assertTrue(out["error"].endswith(pond.TRUNCATED_NOTE))

    def test_answers_keep_utf8_as_is(self):
        # ensure_ascii would turn each character into a six-byte escape, past the budget.
        self.assertIn("é", tools.ok("é"))


class BoundsTest(unittest.TestCase):
    def test_the_originals(self):
        self.assertEqual(check("pond_search")({"query": "q"})["limit"], 10)
        ok = [
            ("pond_search", {"query": "q" * 4096, "limit": 25}),
            ("pond_get_session", {"id": "s", "limit": 1000}),
            ("pond_get_session", {"id": "s", "limit": 1}),
            ("pond_get_message", {"id": "m", "context_before": 0, "context_after": 25}),
            ("pond_sql", {"query": "s" * 8192, "timeout_seconds": 600}),
            ("pond_sql", {"query": "select 1", "timeout_seconds": 1}),
        ]
        for name, args in ok:
            with self.subTest(name=name, args=list(args)):
                check(name)(args)
        bad = [
            ("pond_search", {"query": "q", "limit": 26}, "limit"),
            ("pond_search", {"query": "q", "limit": 0}, "limit"),
            ("pond_search", {"query": "q", "limit": True}, "limit"),
            ("pond_search", {"query": "q", "limit": "10"}, "limit"),
            ("pond_search", {"query": "q" * 4097}, "query"),
            ("pond_search", {"query": "  "}, "query is required"),
            ("pond_search", {}, "query is required"),
            ("pond_search", {"query": "q", "bogus": 1}, "unknown argument bogus"),
            ("pond_get_session", {"id": "s", "limit": 0}, "limit"),
            ("pond_get_session", {"id": "s", "limit": 1001}, "limit"),
            ("pond_get_session", {}, "id is required"),
            ("pond_get_message", {"id": "m", "context_after": 26}, "context_after"),
            ("pond_get_message", {"id": "m", "context_before": -1}, "context_before"),
            ("pond_sql", {"query": "s" * 8193}, "query"),
            ("pond_sql", {"query": "select 1", "timeout_seconds": 601}, "timeout_seconds"),
            ("pond_sql", {"query": "select 1", "timeout_seconds": 0}, "timeout_seconds"),
        ]
        for name, args, want in bad:
            with self.subTest(name=name, want=want):
                with self.assertRaisesRegex(tools.BadArgs, want):
                    check(name)(args)

    def test_schemas_say_the_same_bounds(self):
        props = {s["name"]: s["parameters"]["properties"] for s, _ in tools.TOOLS}
        self.assertEqual(props["pond_search"]["limit"]["maximum"], 25)
        self.assertEqual(props["pond_search"]["query"]["maxLength"], 4096)
        self.assertEqual(props["pond_get_session"]["limit"]["maximum"], 1000)
        self.assertEqual(props["pond_get_message"]["context_after"]["maximum"], 25)
        self.assertEqual(props["pond_sql"]["query"]["maxLength"], 8192)
        self.assertEqual(props["pond_sql"]["timeout_seconds"]["maximum"], 600)

    def test_a_bad_call_is_an_error_answer_before_any_socket(self):
        # The socket path does not exist: the bounds answer first.
        out = json.loads(handler("pond_search", "/nonexistent/mcp.sock")({"query": "q", "limit": 99}))
        self.assertEqual(out["status"], "error")
        self.assertIn("pond_search: limit must be a whole number from 1 to 25", out["error"])
        out = json.loads(handler("pond_search", "/nonexistent/mcp.sock")("not json"))
        self.assertEqual(out["status"], "error")
        self.assertIn("not JSON", out["error"])


class NoDaemonTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="hermes-pond-")
        os.chmod(self.dir, 0o700)

    def tearDown(self):
        for f in os.listdir(self.dir):
            os.remove(os.path.join(self.dir, f))
        os.rmdir(self.dir)

    def test_no_socket_says_how_to_start_the_daemon(self):
        sock = pond.mcp_socket({"POND_RUNTIME_DIR": self.dir})
        out = json.loads(handler("pond_search", sock)({"query": "x"}))
        self.assertEqual(set(out), {"status", "error"})
        self.assertEqual(out["status"], "error")
        self.assertRegex(out["error"], r"no socket at .*mcp\.sock")
        self.assertIn("pond service start", out["error"])
        self.assertIn("pond daemon", out["error"])

    def test_no_runtime_dir_is_no_daemon(self):
        sock = os.path.join(self.dir, "gone", "mcp.sock")
        out = json.loads(handler("pond_sql", sock)({"query": "select 1"}))
        self.assertIn("daemon is not running", out["error"])

    def test_a_dead_socket_is_nothing_listening(self):
        path = os.path.join(self.dir, "mcp.sock")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path)
        s.close()  # the file stays, nobody listens: a daemon that died
        with self.assertRaisesRegex(pond.DaemonDown, "nothing listening"):
            pond.call("pond_search", {"query": "x"}, path=path, timeout=5)

    def test_a_server_that_hangs_up_is_no_daemon(self):
        path = os.path.join(self.dir, "mcp.sock")
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(path)
        srv.listen(1)

        def hang_up():
            c, _ = srv.accept()
            c.recv(65536)
            c.close()

        t = threading.Thread(target=hang_up)
        t.start()
        try:
            with self.assertRaisesRegex(pond.DaemonDown, "the connection closed"):
                pond.call("pond_search", {"query": "x"}, path=path, timeout=30)
        finally:
            t.join()
            srv.close()

    def test_a_runtime_dir_others_may_write_is_refused(self):
        os.chmod(self.dir, 0o777)
        try:
            with self.assertRaisesRegex(pond.PondError, "writable by other users"):
                pond.call("pond_search", {"query": "x"}, path=os.path.join(self.dir, "mcp.sock"))
        finally:
            os.chmod(self.dir, 0o700)

    def test_a_linked_runtime_dir_is_refused(self):
        link = os.path.join(self.dir, "link")
        os.symlink(self.dir, link)
        with self.assertRaisesRegex(pond.PondError, "not a directory"):
            pond.call("pond_search", {"query": "x"}, path=os.path.join(link, "mcp.sock"))


class RuntimeDirTest(unittest.TestCase):
    def test_resolution_follows_ponds_paths(self):
        home = "/home/ada"
        self.assertEqual(pond.runtime_dir({"POND_RUNTIME_DIR": "/r", "HOME": home}), "/r")
        if not os.uname().sysname == "Linux":
            self.skipTest("the XDG rules below are Linux's")
        self.assertEqual(pond.runtime_dir({"XDG_RUNTIME_DIR": "/run/user/1", "HOME": home}), "/run/user/1/pond")
        self.assertEqual(pond.runtime_dir({"XDG_RUNTIME_DIR": "relative", "HOME": home}), home + "/.local/state/pond/run")
        self.assertEqual(pond.runtime_dir({"XDG_STATE_HOME": "/s", "HOME": home}), "/s/pond/run")
        self.assertEqual(pond.runtime_dir({"POND_STATE_DIR": "/st", "HOME": home}), "/st/run")
        deep = "/" + "d" * 100
        self.assertEqual(pond.runtime_dir({"POND_STATE_DIR": deep}), os.path.join(tempfile.gettempdir(), "pond-%d" % os.getuid()))


class RegisterTest(unittest.TestCase):
    def test_register_adds_the_four_tools_to_the_pond_toolset(self):
        import hermes_pond

        got = []

        class Ctx:
            def register_tool(self, **kw):
                got.append(kw)

        hermes_pond.register(Ctx())
        self.assertEqual([g["name"] for g in got], ["pond_search", "pond_get_session", "pond_get_message", "pond_sql"])
        for g in got:
            self.assertEqual(g["toolset"], "pond")
            self.assertEqual(g["schema"]["name"], g["name"])
            self.assertTrue(callable(g["handler"]))


if __name__ == "__main__":
    unittest.main()
