"""Cells in the Citeflow kernel: errors, stop_on_error, Citeflow displays, interrupt, restart."""
import http.server
import json
import os
import threading
import time
import unittest

from kernelclient import Session

MIME = "application/vnd.citeflow.run+json"
QUESTION = "Vitamin D deficiency is associated with fractures."


class Hang(http.server.BaseHTTPRequestHandler):
    """An OpenAI-compatible server that never answers: a node waiting on it runs until interrupted."""

    def do_POST(self):
        self.server.hits += 1
        time.sleep(60)

    def log_message(self, *a):
        pass


def outputs_of(msgs, kind):
    return [m for m in msgs if m["msg_type"] == kind]


class CellTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cwd = os.environ["CITEFLOW_TEST_CWD"]
        with open(os.path.join(cls.cwd, "marker.txt"), "w") as f:
            f.write("here")
        cls.s = Session(cwd=cls.cwd)

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def test_runtime_error_has_ename_evalue_traceback(self):
        reply, out = self.s.execute('function f() { throw new RangeError("too far"); }\nf()')
        self.assertEqual(reply["status"], "error")
        self.assertEqual((reply["ename"], reply["evalue"]), ("RangeError", "too far"))
        err = outputs_of(out, "error")[0]["content"]
        self.assertEqual(err["ename"], "RangeError")
        self.assertTrue(any("too far" in line for line in err["traceback"]))

    def test_type_error_is_reported_as_a_typescript_error(self):
        reply, out = self.s.execute('const n: number = "text";')
        self.assertEqual(reply["status"], "error")
        self.assertEqual(reply["ename"], "TypeScriptError")
        self.assertIn("not assignable to type 'number'", reply["evalue"])
        self.assertIn("1:7", reply["evalue"])

    def test_declarations_persist_and_top_level_await_works(self):
        self.s.execute("let counter = 40;")
        reply, out = self.s.execute("await new Promise((r) => setTimeout(r, 20)); counter + 2")
        self.assertEqual(outputs_of(out, "execute_result")[0]["content"]["data"]["text/plain"], "42")

    def test_stop_on_error_aborts_only_what_is_queued_and_only_when_asked(self):
        kc = self.s.kc
        bad = kc.execute('throw new Error("first")')
        queued = kc.execute("1 + 1")
        self.assertEqual(self.s.shell_reply(bad)["content"]["status"], "error")
        self.assertEqual(self.s.shell_reply(queued)["content"]["status"], "aborted")
        bad = kc.execute('throw new Error("again")', stop_on_error=False)
        queued = kc.execute("2 + 2")
        self.assertEqual(self.s.shell_reply(bad)["content"]["status"], "error")
        self.assertEqual(self.s.shell_reply(queued)["content"]["status"], "ok")
        # tslab aborts anything arriving within 200 ms of an error; this kernel does not.
        reply, _ = self.s.execute("3 + 3")
        self.assertEqual(reply["status"], "ok")

    def test_packages_types_and_files_resolve_from_a_folder_without_node_modules(self):
        self.assertFalse(os.path.exists(os.path.join(self.cwd, "node_modules")))
        reply, out = self.s.execute('import { readFileSync } from "fs";\nimport { templateNames } from "citeflow";\n[readFileSync("marker.txt", "utf8"), templateNames().length, process.version.startsWith("v")]')
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual(outputs_of(out, "execute_result")[0]["content"]["data"]["text/plain"], "[ 'here', 5, true ]")

    def test_a_run_displays_live_and_renders_as_a_citeflow_bundle(self):
        code = f'import {{ run, scoreChart }} from "citeflow";\nconst r = await run("verifai", {json.dumps(QUESTION)});\nr'
        reply, out = self.s.execute(code)
        self.assertEqual(reply["status"], "ok", reply)
        first = outputs_of(out, "display_data")
        updates = outputs_of(out, "update_display_data")
        self.assertEqual(len(first), 1)
        self.assertGreaterEqual(len(updates), 1)
        display_id = first[0]["content"]["transient"]["display_id"]
        self.assertTrue(all(u["content"]["transient"]["display_id"] == display_id for u in updates))
        final = updates[-1]["content"]["data"][MIME]
        self.assertEqual(final["status"], "ok")
        self.assertTrue(all(n["status"] == "done" for n in final["nodes"]))
        # The live display ends as the whole run view; the cell's value, that same run, is not shown twice.
        self.assertEqual(set(updates[-1]["content"]["data"]), {MIME, "text/html", "text/plain"})
        self.assertEqual((final["version"], final["kind"], final["graph"]["name"], final["question"]), (1, "run", "Verif.ai", QUESTION))
        self.assertIn("top", final["outputs"])
        self.assertEqual(outputs_of(out, "execute_result"), [])
        self.assertRegex(next(n for n in final["nodes"] if n["id"] == "retrieve")["summary"], r"^\d+ passages · top fused [\d.]+$")

        # In a later cell the run renders as a Citeflow bundle.
        reply, out = self.s.execute("r")
        result = outputs_of(out, "execute_result")[0]["content"]["data"]
        self.assertEqual(set(result), {MIME, "text/html", "text/plain"})
        self.assertEqual(result[MIME]["runId"], final["runId"])

        reply, out = self.s.execute('r.output("top", "items")')
        data = outputs_of(out, "execute_result")[0]["content"]["data"]
        self.assertEqual(data[MIME]["kind"], "passages")
        self.assertIn("<table>", data["text/html"])
        reply, out = self.s.execute('r.show("verify", "verdicts")')
        self.assertEqual(outputs_of(out, "display_data")[0]["content"]["data"][MIME]["kind"], "verdicts")
        reply, out = self.s.execute('display(scoreChart(r.output("retrieve", "passages") as any))')
        self.assertIn("application/vnd.vegalite.v5+json", outputs_of(out, "display_data")[0]["content"]["data"])

    def test_interrupt_stops_a_busy_loop(self):
        msg_id = self.s.kc.execute("while (true) {}")
        time.sleep(1.5)
        self.s.km.interrupt_kernel()
        reply = self.s.shell_reply(msg_id, timeout=30)["content"]
        self.assertEqual((reply["status"], reply["ename"]), ("error", "Interrupted"))
        reply, _ = self.s.execute("1 + 1")
        self.assertEqual(reply["status"], "ok")

    def test_interrupt_during_a_long_node_aborts_the_run_and_leaves_the_store_readable(self):
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hang)
        server.hits = 0
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            port = server.server_address[1]
            code = (
                'import { configure, services, start } from "citeflow";\n'
                'globalThis.chatBefore = services().config.chat;\n'
                f'configure({{ chat: {{ model: "slow-model", baseUrl: "http://127.0.0.1:{port}/v1", apiKey: "sk-test" }} }});\n'
                f'const live = start("verifai", {json.dumps(QUESTION)}, {{ force: true }});\n'
                "globalThis.liveRunId = live.runId;\n"
                "await live.done;"
            )
            msg_id = self.s.kc.execute(code)
            deadline = time.time() + 60
            while server.hits == 0 and time.time() < deadline:
                time.sleep(0.1)
            self.assertGreater(server.hits, 0, "the generate node never called the LLM")
            self.s.km.interrupt_kernel()
            reply = self.s.shell_reply(msg_id, timeout=30)["content"]
            self.assertEqual((reply["status"], reply["ename"]), ("error", "Interrupted"))
            reply, out = self.s.execute(
                'import { Run, configure as reconfigure } from "citeflow";\n'
                'reconfigure({ chat: (globalThis as any).chatBefore });\n'
                "await new Promise((r) => setTimeout(r, 500));\n"
                "const stored = Run.open((globalThis as any).liveRunId);\n"
                "[stored.status, stored.node(\"retrieve\").status, stored.node(\"answer\").status, (stored.output(\"top\", \"items\") as unknown[]).length > 0]"
            )
            self.assertEqual(reply["status"], "ok", reply)
            self.assertEqual(outputs_of(out, "execute_result")[0]["content"]["data"]["text/plain"], "[ 'aborted', 'done', 'aborted', true ]")
        finally:
            server.shutdown()

    def test_zz_restart_keeps_working(self):
        self.s.km.restart_kernel(now=False)
        self.s.kc.wait_for_ready(timeout=90)
        reply, out = self.s.execute('(globalThis as any).liveRunId ?? "fresh process"')
        self.assertEqual(reply["status"], "ok", reply)
        self.assertEqual(outputs_of(out, "execute_result")[0]["content"]["data"]["text/plain"], "'fresh process'")


if __name__ == "__main__":
    unittest.main()
