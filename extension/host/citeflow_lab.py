"""Serves the JupyterLab front end built in ./build with Debian's jupyter_server + jupyterlab_server.

Prebuilt (federated) extensions are found in the labextensions folders of $JUPYTER_PATH, exactly
as a pip-installed JupyterLab finds them. Started by `npm run lab` (lab.mjs), which sets the paths.
"""
import getpass
import json
import os

from jupyter_server.base.handlers import APIHandler, JupyterHandler
from jupyterlab_server import LabServerApp
from tornado import web
from tornado.websocket import WebSocketHandler

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(HERE, "build")
STATE = os.environ.get("CITEFLOW_LAB_STATE", os.path.join(BUILD, "state"))


# jupyter_server 1.23 (Debian 12) predates two APIs JupyterLab 4 calls: the identity endpoint and
# the event bus. Without them every page load logs 404s. Answer both as jupyter_server 2 would:
# the identity of the (single) user, and an event stream on which this server never emits.
class IdentityHandler(APIHandler):
    @web.authenticated
    def get(self):
        user = getpass.getuser()
        identity = {"username": user, "name": user, "display_name": user, "initials": user[:1].upper(), "avatar_url": None, "color": None}
        self.finish(json.dumps({"identity": identity, "permissions": {}}))


class EventsHandler(WebSocketHandler, JupyterHandler):
    async def get(self, *args, **kwargs):
        if self.current_user is None:
            raise web.HTTPError(403)
        return await super().get(*args, **kwargs)

    def on_message(self, message):
        pass


class CiteflowLab(LabServerApp):
    name = "citeflow_lab"
    load_other_extensions = False
    app_name = "JupyterLab"
    app_version = "4.5.10"
    app_url = "/lab"
    default_url = "/lab"
    extension_url = "/lab"
    static_dir = os.path.join(BUILD, "static")
    templates_dir = os.path.join(BUILD, "templates")
    schemas_dir = os.path.join(BUILD, "schemas")
    themes_dir = os.path.join(BUILD, "themes")
    app_settings_dir = os.path.join(STATE, "app-settings")
    user_settings_dir = os.path.join(STATE, "user-settings")
    workspaces_dir = os.path.join(STATE, "workspaces")

    def initialize_handlers(self):
        super().initialize_handlers()
        self.handlers.extend([(r"/api/me", IdentityHandler), (r"/api/events/subscribe", EventsHandler)])

    def initialize_settings(self):
        super().initialize_settings()
        # Lets tests and power users reach the app object (as JupyterLab's dev mode does).
        self.settings.setdefault("page_config_data", {})["exposeAppInBrowser"] = True


def _jupyter_server_extension_points():
    return [{"module": __name__, "app": CiteflowLab}]


if __name__ == "__main__":
    CiteflowLab.launch_instance()
