"""Starts the Citeflow kernel: the kernelspec this wheel installs runs
`python -m citeflow_jupyterlab.kernel -f {connection_file}`.

The kernel is a Node program that comes with the `citeflow` command. It is looked up when the
kernel starts, not when the wheel is installed, so installing, upgrading or moving Node or the
CLI never leaves a kernelspec pointing at a path that is gone. When either is missing, the
reason goes to the kernel's log (the Jupyter server's output) instead of a silent dead kernel.

    CITEFLOW_CLI   the CLI to use: a `citeflow` executable or its bin/citeflow.js (default: `citeflow` on PATH)
    CITEFLOW_NODE  the Node.js binary (default: `node` on PATH)
"""

import os
import re
import shutil
import subprocess
import sys

MIN_NODE = (20, 19)
INSTALL = "npm install -g @citeflow/cli"


def fail(message):
    sys.stderr.write(f"Citeflow kernel cannot start: {message}\n")
    sys.stderr.flush()
    sys.exit(1)


def locate(variable, command):
    """The file `variable` names, else `command` on PATH; (None, why) when there is none."""
    given = os.environ.get(variable)
    path = given or shutil.which(command)
    if path and os.path.isfile(path):
        return path, ""
    return None, f"{variable}={given} is not a file" if given else f"no `{command}` on PATH"


def find_node():
    node, why = locate("CITEFLOW_NODE", "node")
    if not node:
        fail(f"Node.js {MIN_NODE[0]}.{MIN_NODE[1]} or later is needed ({why}). Install Node.js, then `{INSTALL}`.")
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        fail(f"{node} does not run: {e}")
    m = re.match(r"v(\d+)\.(\d+)", out)
    if not m or (int(m.group(1)), int(m.group(2))) < MIN_NODE:
        fail(f"{node} is Node.js {out or '(no version)'}; the kernel needs {MIN_NODE[0]}.{MIN_NODE[1]} or later.")
    return node


def find_cli():
    cli, why = locate("CITEFLOW_CLI", "citeflow")
    if not cli:
        fail(f"the Citeflow CLI is not installed ({why}). Install it with `{INSTALL}`, or set CITEFLOW_CLI to its bin/citeflow.js.")
    # npm installs `citeflow` as a link to the package's bin/citeflow.js;
    # running that file with the Node found above keeps the choice of Node in one place.
    return os.path.realpath(cli)


def main(argv):
    if len(argv) != 2 or argv[0] not in ("-f", "--connection-file"):
        fail("usage: python -m citeflow_jupyterlab.kernel -f <connection file> (Jupyter passes {connection_file})")
    node = find_node()
    cli = find_cli()
    args = [node, cli, "kernel", "start", "--connection-file", argv[1]]
    if os.name == "posix":
        os.execv(node, args)  # the kernel takes this process: Jupyter's signals reach Node directly
    sys.exit(subprocess.call(args))


if __name__ == "__main__":
    main(sys.argv[1:])
