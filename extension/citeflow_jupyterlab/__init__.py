"""Citeflow for JupyterLab 4: the prebuilt extension and the Citeflow kernel's launcher.

The extension itself is JavaScript, shipped in this wheel under
share/jupyter/labextensions/@citeflow/jupyterlab; the kernel is the Node program of the
`citeflow` command (`npm install -g @citeflow/cli`), started by `citeflow_jupyterlab.kernel`.
The server extension answers how far the store Citeflow searches is indexed (`citeflow_jupyterlab.store`).
"""

__version__ = "0.1.0"


def _jupyter_labextension_paths():
    return [{"src": "labextension", "dest": "@citeflow/jupyterlab"}]


def _jupyter_server_extension_points():
    return [{"module": "citeflow_jupyterlab"}]


def _load_jupyter_server_extension(server_app):
    from .store import load

    load(server_app)
