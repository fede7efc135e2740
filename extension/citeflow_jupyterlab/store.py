"""The Jupyter server's view of the store Citeflow searches ($CITEFLOW_STORE): whether an ingest is
writing it and how far it is, for JupyterLab's status bar and launcher cards while it is indexed.

GET <base_url>/citeflow/store (the server's token or cookie, as every API) answers
    {"store": <folder>, "label": <name>, "state": "ready" | "indexing" | "unfinished" | "missing" | "none",
     "documents"?: n, "total"?: n, "startedAt"?: iso}
"indexing": an ingest holds the store's lock (ingest.lock, its process alive) and says how far it
is; "unfinished": its meta says its last ingest stopped before the end and none is running.
"""

import json
import os

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
import tornado


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read_json(path, limit=1 << 20):
    """A small JSON file of the store's, or None when it is not there or not such a file."""
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > limit:
            return None
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
        return value if isinstance(value, dict) else None
    except (OSError, ValueError):
        return None


def _count(value):
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def store_state(store, label=None):
    """What the store at `store` says of itself (see the module's doc)."""
    if not store or store.startswith("qdrant:"):
        return {"state": "none"}
    out = {"store": store, "label": label or os.path.basename(os.path.normpath(store))}
    lock = _read_json(os.path.join(store, "ingest.lock"))
    if lock and isinstance(lock.get("pid"), int) and _alive(lock["pid"]):
        out["state"] = "indexing"
        for key in ("documents", "total"):
            if _count(lock.get(key)) is not None:
                out[key] = lock[key]
        if isinstance(lock.get("startedAt"), str):
            out["startedAt"] = lock["startedAt"]
        return out
    meta = _read_json(os.path.join(store, "citeflow-store.json"))
    if meta is None:
        out["state"] = "missing"
    else:
        out["state"] = "unfinished" if meta.get("incomplete") else "ready"
    return out


class StoreHandler(APIHandler):
    @tornado.web.authenticated
    def get(self):
        self.finish(json.dumps(store_state(os.environ.get("CITEFLOW_STORE", ""), os.environ.get("CITEFLOW_STORE_LABEL"))))


def load(server_app):
    web_app = server_app.web_app
    route = url_path_join(web_app.settings["base_url"], "citeflow", "store")
    web_app.add_handlers(".*$", [(route, StoreHandler)])
