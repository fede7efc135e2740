"""The citeflow comm, driven as the pipeline editor drives it, from a Python jupyter_client."""
import os
import unittest

from kernelclient import Session

QUESTION = {"id": "c1", "text": os.environ.get("CITEFLOW_TEST_QUESTION", "Vitamin D deficiency is associated with fractures.")}


def served_graph(url):
    """A graph whose one model node names the server at `url`."""
    return {
        "citeflow": 1,
        "name": "served",
        "inputs": {"question": {"type": "Question"}},
        "nodes": [
            {"id": "question", "type": "input.question", "version": 1, "params": {}},
            {"id": "enrich", "type": "query.enrich", "version": 1, "params": {"model": "m", "baseUrl": url}},
        ],
        "edges": [{"from": "question.question", "to": "enrich.question"}],
    }


class CiteflowCommTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = Session(cwd=os.environ["CITEFLOW_TEST_CWD"])
        cls.comm = cls.s.comm_open("citeflow", {"runs": os.environ["CITEFLOW_RUNS"]})

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def test_hello_and_comm_info(self):
        reply, _ = self.s.request(self.comm, "h", "hello")
        self.assertTrue(reply["ok"], reply)
        self.assertEqual(reply["result"]["version"], 3)
        self.assertIn("verifai", reply["result"]["templates"])
        msg_id = self.s.kc.comm_info(target_name="citeflow")
        info = self.s.shell_reply(msg_id)
        self.assertEqual(info["msg_type"], "comm_info_reply")
        self.assertEqual(info["content"]["comms"][self.comm], {"target_name": "citeflow"})

    def test_unknown_method_and_bad_request_are_errors_that_name_the_problem(self):
        reply, _ = self.s.request(self.comm, "u", "fly")
        self.assertFalse(reply["ok"])
        self.assertIn('unknown method "fly"', reply["error"]["message"])
        reply, _ = self.s.request(self.comm, "o", "output", runId="nope", nodeId="x")
        self.assertFalse(reply["ok"])
        self.assertIn('no run "nope"', reply["error"]["message"])

    def test_model_cards(self):
        reply, _ = self.s.request(self.comm, "c", "modelCard", model="citeflow/nli-minilm-scifact")
        self.assertTrue(reply["ok"], reply)
        card = reply["result"]
        self.assertTrue(card["path"].endswith("citeflow/nli-minilm-scifact/README.md"), card["path"])
        facts = dict(card["facts"])
        self.assertIn("all-MiniLM-L6-v2", facts["base weights"])
        self.assertRegex(facts["SUPPORT vs CONTRADICT on gold rationales"], r"^0\.\d{3} on \d+")
        # A model without a card (a test fixture) has none; a request without a name is refused.
        reply, _ = self.s.request(self.comm, "c2", "modelCard", model="pair-nli-scifact")
        self.assertEqual(reply, {"type": "reply", "id": "c2", "ok": True, "result": None})
        reply, _ = self.s.request(self.comm, "c3", "modelCard")
        self.assertFalse(reply["ok"])
        self.assertIn('"modelCard" needs "model" (string)', reply["error"]["message"])

    def test_run_template_stream_events_and_fetch_outputs(self):
        reply, _ = self.s.request(self.comm, 1, "run", inputs={"question": QUESTION})
        self.assertFalse(reply["ok"])
        self.assertIn('"run" needs "graph"', reply["error"]["message"])
        reply, _ = self.s.request(self.comm, 2, "run", graph="verifai", inputs={"question": QUESTION})
        self.assertTrue(reply["ok"], reply)
        run_id = reply["result"]["runId"]
        events = [m["event"] for m in self.s.comm_messages(self.comm, lambda d: d.get("type") == "event" and d["event"]["type"] == "run-end") if m.get("type") == "event"]
        self.assertEqual(events[0]["type"], "run-start")
        self.assertEqual(events[-1]["status"], "ok", events[-1])
        ended = [e["nodeId"] for e in events if e["type"] == "node-end"]
        self.assertEqual(sorted(ended), sorted(reply["result"]["selected"]))
        self.assertTrue(all("outputs" not in e for e in events if e["type"] == "node-end"))

        reply, _ = self.s.request(self.comm, 3, "output", runId=run_id, nodeId="top", port="items")
        passages = reply["result"]
        self.assertGreater(len(passages), 0)
        self.assertIn("bm25", passages[0]["scores"])
        reply, _ = self.s.request(self.comm, 4, "output", runId=run_id, nodeId="verify", port="verdicts")
        self.assertTrue(all(v["label"] in ("SUPPORT", "CONTRADICT", "NO_EVIDENCE", "NO_REFERENCE") for v in reply["result"]))

        # Override an intermediate value: keep only the first passage; only downstream nodes re-run.
        reply, _ = self.s.request(self.comm, 5, "run", graph="verifai", inputs={"question": QUESTION}, overrides={"top": {"items": passages[:1]}})
        run2 = reply["result"]["runId"]
        events = [m["event"] for m in self.s.comm_messages(self.comm, lambda d: d.get("type") == "event" and d["event"]["type"] == "run-end") if m.get("type") == "event"]
        cache = {e["nodeId"]: e["cache"] for e in events if e["type"] == "node-end"}
        self.assertEqual(cache["retrieve"], "hit")
        self.assertEqual(cache["answer"], "miss")
        reply, _ = self.s.request(self.comm, 6, "output", runId=run2, nodeId="answer", port="answer")
        self.assertEqual(reply["result"]["allowed"], [passages[0]["id"]])

        reply, _ = self.s.request(self.comm, 7, "runs", graphName="Verif.ai")
        self.assertIn(run_id, [r["runId"] for r in reply["result"]])
        reply, _ = self.s.request(self.comm, 8, "diff", a=run_id, b=run2)
        self.assertTrue(reply["ok"], reply)
        metrics = {m["name"]: m for m in reply["result"]["metrics"]}
        # eval.citations' scores and the answer's hallucinated citations, for each run.
        for name in ("citations.f1", "citations.precision", "answer.hallucinatedCitations", "ms"):
            self.assertIn("a", metrics[name], name)
            self.assertIn("b", metrics[name], name)
        self.assertGreaterEqual(metrics["citations.f1"]["a"], 0)
        self.assertLessEqual(metrics["citations.f1"]["a"], 1)

    def test_run_to_from_and_one_node(self):
        def run(req_id, **kw):
            reply, _ = self.s.request(self.comm, req_id, "run", graph="verifai", inputs={"question": QUESTION}, **kw)
            self.assertTrue(reply["ok"], reply)
            events = [m["event"] for m in self.s.comm_messages(self.comm, lambda d: d.get("type") == "event" and d["event"]["type"] == "run-end") if m.get("type") == "event"]
            self.assertEqual(events[-1]["status"], "ok", events[-1])
            return reply["result"]["selected"], {e["nodeId"]: e["cache"] for e in events if e["type"] == "node-end"}

        selected, _ = run("t1", to="top")
        self.assertEqual(selected, ["question", "retrieve", "papers", "top"])
        selected, cache = run("t2", **{"from": "claims"})
        self.assertEqual(sorted(selected), ["answer", "claims", "papers", "question", "retrieve", "top", "verify"])  # eval.citations is not downstream of claims
        self.assertEqual((cache["answer"], cache["claims"], cache["verify"]), ("hit", "miss", "miss"))
        selected, cache = run("t3", only="answer")
        self.assertEqual(cache["answer"], "miss")
        self.assertTrue(all(cache[n] == "hit" for n in selected if n != "answer"))

    def test_step_through_a_run(self):
        reply, _ = self.s.request(self.comm, "s1", "run", graph="verifai", inputs={"question": QUESTION}, step=True, force=True)
        run_id = reply["result"]["runId"]
        paused = self.s.comm_messages(self.comm, lambda d: d.get("type") == "event" and d["event"]["type"] == "node-paused")
        self.assertEqual(paused[-1]["event"]["nodeId"], "question")
        reply, _ = self.s.request(self.comm, "s2", "step", runId=run_id)
        self.assertTrue(reply["ok"], reply)
        paused = self.s.comm_messages(self.comm, lambda d: d.get("type") == "event" and d["event"]["type"] == "node-paused")
        self.assertEqual(paused[-1]["event"]["nodeId"], "retrieve")
        reply, _ = self.s.request(self.comm, "s3", "abort", runId=run_id)
        self.assertTrue(reply["ok"], reply)
        end = self.s.comm_messages(self.comm, lambda d: d.get("type") == "event" and d["event"]["type"] == "run-end")
        self.assertEqual(end[-1]["event"]["status"], "aborted")

    def test_a_server_the_user_has_not_configured_needs_consent_in_the_run_request(self):
        graph = served_graph("http://127.0.0.1:9/v1")
        # Nothing starts: the reply names the server and where the graph names it.
        reply, _ = self.s.request(self.comm, "c1", "run", graph=graph, inputs={"question": QUESTION})
        self.assertTrue(reply["ok"], reply)
        self.assertNotIn("runId", reply["result"])
        self.assertEqual([(r["target"], r["node"], r["allowed"]) for r in reply["result"]["needsConsent"]], [("http://127.0.0.1:9/v1", "enrich", False)])
        # The same request with the user's consent starts the run; the server stays allowed for the kernel's life.
        reply, _ = self.s.request(self.comm, "c2", "run", graph=graph, inputs={"question": QUESTION}, allowEndpoints=["http://127.0.0.1:9/v1"])
        self.assertTrue(reply["ok"], reply)
        run_id = reply["result"]["runId"]
        self.s.comm_messages(self.comm, lambda d: d.get("type") == "event" and d["event"]["type"] == "run-end" and d["runId"] == run_id)
        reply, _ = self.s.request(self.comm, "c3", "reach", graph=graph)
        self.assertEqual([r["allowed"] for r in reply["result"] if r["kind"] == "endpoint"], [True])

    def test_what_a_notebook_cell_configures_the_editors_runs_use(self):
        # One host in the kernel: a server a cell configures is one the editor's graphs may reach without asking.
        graph = served_graph("http://127.0.0.1:8/v1")
        allowed = lambda reply: [r["allowed"] for r in reply["result"] if r["kind"] == "endpoint"]
        reply, _ = self.s.request(self.comm, "n1", "reach", graph=graph)
        self.assertEqual(allowed(reply), [False])
        content, _ = self.s.execute('import { configure } from "citeflow";\nconfigure({ chat: { model: "m", baseUrl: "http://127.0.0.1:8/v1" } });')
        self.assertEqual(content["status"], "ok", content)
        try:
            reply, _ = self.s.request(self.comm, "n2", "reach", graph=graph)
            self.assertEqual(allowed(reply), [True])
        finally:
            self.s.execute('configure({ chat: { model: "", baseUrl: "" } });')

    def test_stop_while_a_cell_runs(self):
        # The editor's run pauses at its first node; then a notebook cell keeps the shell busy until a flag file appears.
        reply, _ = self.s.request(self.comm, "b1", "run", graph="verifai", inputs={"question": QUESTION}, step=True, force=True)
        run_id = reply["result"]["runId"]
        self.s.comm_messages(self.comm, lambda d: d.get("type") == "event" and d["event"]["type"] == "node-paused")
        flag = os.path.join(os.environ["CITEFLOW_TEST_CWD"], f"flag-{run_id}")
        cell = self.s.kc.execute(
            'import { existsSync } from "node:fs";\n'
            f"await new Promise<void>((r) => {{ const t = setInterval(() => {{ if (existsSync({flag!r})) {{ clearInterval(t); r(); }} }}, 50); }});\n"
            'console.log("cell done");'
        )
        # Stop is answered and the run ends while the cell still waits (queued behind it, this would never come).
        reply, _ = self.s.request(self.comm, "b2", "abort", runId=run_id)
        self.assertTrue(reply["ok"], reply)
        end = self.s.comm_messages(self.comm, lambda d: d.get("type") == "event" and d["event"]["type"] == "run-end")
        self.assertEqual(end[-1]["event"]["status"], "aborted")
        open(flag, "w").close()
        # The cell then ends normally, its output under its own request.
        out = []
        while True:
            msg = self.s.kc.get_iopub_msg(timeout=60)
            if msg["parent_header"].get("msg_id") != cell:
                continue
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
            out.append(msg)
        self.assertEqual(self.s.shell_reply(cell)["content"]["status"], "ok")
        self.assertIn("cell done\n", [m["content"]["text"] for m in out if m["msg_type"] == "stream"])

    def test_unknown_target_is_closed(self):
        cid = self.s.comm_open("no-such-target")
        got = self.s.comm_messages(cid, lambda d: d.get("type") == "closed", timeout=30)
        self.assertEqual(got[-1], {"type": "closed"})


if __name__ == "__main__":
    unittest.main()
