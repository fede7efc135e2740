"""Execute notebooks headless with nbclient on the Citeflow kernel; a failed cell fails the run.

usage: run_notebooks.py OUT_DIR NOTEBOOK...   (executed copies, with outputs, are written to OUT_DIR)
"""
import os
import sys
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

KERNEL = os.environ.get("CITEFLOW_KERNEL", "citeflow")


def main(out_dir, paths):
    os.makedirs(out_dir, exist_ok=True)
    failed = 0
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(nb, kernel_name=KERNEL, timeout=900, resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}})
        started = time.time()
        try:
            client.execute()
            status = "ok"
        except CellExecutionError as e:
            failed += 1
            status = f"FAILED\n{e}"
        out = os.path.join(out_dir, os.path.basename(path))
        nbformat.write(nb, out)
        print(f"{os.path.basename(path)}: {status} ({time.time() - started:.1f} s, {len(nb.cells)} cells) -> {out}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
