"""A small jupyter_client harness shared by the Citeflow kernel tests."""
import os
import time
import uuid
from queue import Empty

from jupyter_client.manager import KernelManager

KERNEL = os.environ.get("CITEFLOW_KERNEL", "citeflow")


class Session:
    def __init__(self, cwd=None):
        self.km = KernelManager(kernel_name=KERNEL)
        self.km.start_kernel(cwd=cwd or os.getcwd())
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=90)

    def close(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=False)

    def execute(self, code, timeout=120):
        """Run a cell; returns (reply content, iopub messages for it)."""
        msg_id = self.kc.execute(code)
        out = []
        deadline = time.time() + timeout
        idle = False
        while not idle:
            msg = self.kc.get_iopub_msg(timeout=max(0.1, deadline - time.time()))
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                idle = True
            else:
                out.append(msg)
        return self.shell_reply(msg_id, timeout)["content"], out

    def shell_reply(self, msg_id, timeout=60):
        """The shell reply to msg_id (earlier replies, e.g. to wait_for_ready's kernel_info, are skipped)."""
        while True:
            msg = self.kc.get_shell_msg(timeout=timeout)
            if msg["parent_header"].get("msg_id") == msg_id:
                return msg

    def comm_open(self, target, data=None):
        comm_id = uuid.uuid4().hex
        self.kc.shell_channel.send(self.kc.session.msg("comm_open", {"comm_id": comm_id, "target_name": target, "data": data or {}}))
        return comm_id

    def comm_send(self, comm_id, data):
        self.kc.shell_channel.send(self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data}))

    def comm_close(self, comm_id):
        self.kc.shell_channel.send(self.kc.session.msg("comm_close", {"comm_id": comm_id, "data": {}}))

    def comm_messages(self, comm_id, until, timeout=120):
        """iopub comm_msg data for comm_id until `until(data)` is true; returns them all."""
        got = []
        deadline = time.time() + timeout
        while True:
            try:
                msg = self.kc.get_iopub_msg(timeout=max(0.1, deadline - time.time()))
            except Empty:
                raise AssertionError(f"timed out waiting on comm {comm_id}; got {got[-3:]}")
            if msg["msg_type"] == "comm_close" and msg["content"]["comm_id"] == comm_id:
                got.append({"type": "closed"})
                if until(got[-1]):
                    return got
            if msg["msg_type"] == "comm_msg" and msg["content"]["comm_id"] == comm_id:
                got.append(msg["content"]["data"])
                if until(got[-1]):
                    return got

    def request(self, comm_id, req_id, method, **kw):
        self.comm_send(comm_id, {"id": req_id, "method": method, **kw})
        msgs = self.comm_messages(comm_id, lambda d: d.get("type") == "reply" and d.get("id") == req_id)
        return msgs[-1], msgs[:-1]
