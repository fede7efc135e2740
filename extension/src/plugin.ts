/**
 * The plugin: the `*.citeflow.json` file type and editor (widget factory, tracker, restorer,
 * settings), the commands (commands.ts), and the notebook renderer for Citeflow runs. It provides
 * the editors' tracker as `ICiteflowTracker`.
 */
import { pipelineIcon } from "./icon";
import { ILayoutRestorer, type JupyterFrontEnd, type JupyterFrontEndPlugin } from "@jupyterlab/application";
import { ICommandPalette, WidgetTracker } from "@jupyterlab/apputils";
import { PathExt } from "@jupyterlab/coreutils";
import { IDefaultFileBrowser } from "@jupyterlab/filebrowser";
import { ILauncher } from "@jupyterlab/launcher";
import { IMainMenu } from "@jupyterlab/mainmenu";
import { IRenderMimeRegistry } from "@jupyterlab/rendermime";
import { ISettingRegistry } from "@jupyterlab/settingregistry";
import { ITranslator, nullTranslator } from "@jupyterlab/translation";
import { CITEFLOW_MIME, type GraphDoc } from "@citeflow/core/browser";
import { setTranslationBundle, trans } from "./i18n";
import { addCommands } from "./commands";
import { saveGraph, slug } from "./model";
import { RunRenderer, type OpenInEditor } from "./render";
import { confirmServers } from "./consent";
import { ICiteflowTracker, type CiteflowEditor } from "./tokens";
import { CiteflowFactory, FACTORY, FILE_TYPE } from "./widget";

const PLUGIN_ID = "@citeflow/jupyterlab:plugin";

/**
 * Each pipeline file gets its own Citeflow kernel (~0.5 GB): it ends with the file's last editor. Once no editor of
 * `path` is open, the server's sessions at that path are shut down — found on the server, not through the closed
 * editor, so a kernel still starting when its tab closed is shut down once it exists (asked for up to 30 s), and a
 * file opened again meanwhile keeps its kernel.
 */
async function endKernel(app: JupyterFrontEnd, tracker: WidgetTracker<CiteflowEditor>, path: string, closed: CiteflowEditor): Promise<void> {
  const sessions = app.serviceManager.sessions;
  for (let i = 0; i < 60; i++) {
    // The tracker may still hold the editor just closed: another open editor of the path keeps the kernel.
    if (tracker.find((w) => w !== closed && !w.isDisposed && w.context.path === path)) return;
    try {
      await sessions.refreshRunning();
      const at = [...sessions.running()].filter((s) => s.path === path);
      if (at.length) {
        await Promise.all(at.map((s) => sessions.shutdown(s.id)));
        return;
      }
    } catch {
      return; // the server is going away: its kernels go with it
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

export const plugin: JupyterFrontEndPlugin<ICiteflowTracker> = {
  id: PLUGIN_ID,
  description: "Citeflow pipeline editor and run renderer",
  autoStart: true,
  requires: [IRenderMimeRegistry],
  provides: ICiteflowTracker,
  optional: [ILauncher, IMainMenu, ICommandPalette, ISettingRegistry, ITranslator, IDefaultFileBrowser, ILayoutRestorer],
  activate: async (
    app: JupyterFrontEnd,
    rendermime: IRenderMimeRegistry,
    launcher: ILauncher | null,
    mainMenu: IMainMenu | null,
    palette: ICommandPalette | null,
    settingRegistry: ISettingRegistry | null,
    translator: ITranslator | null,
    browser: IDefaultFileBrowser | null,
    restorer: ILayoutRestorer | null,
  ) => {
    setTranslationBundle((translator ?? nullTranslator).load("citeflow"));
    const settings = { kernelName: "citeflow", defaultQuestion: "" };
    if (settingRegistry) {
      try {
        const s = await settingRegistry.load(PLUGIN_ID);
        const read = () => Object.assign(settings, s.composite as typeof settings);
        read();
        s.changed.connect(read);
      } catch (e) {
        console.warn("citeflow: settings could not be loaded, using defaults", e);
      }
    }

    app.docRegistry.addFileType({
      name: FILE_TYPE,
      displayName: trans.__("Citeflow pipeline"),
      extensions: [".citeflow.json"],
      mimeTypes: ["application/json"],
      contentType: "file",
      fileFormat: "text",
      icon: pipelineIcon,
    });
    const factory = new CiteflowFactory(
      {
        name: FACTORY,
        label: trans.__("Citeflow Pipeline Editor"),
        fileTypes: [FILE_TYPE],
        defaultFor: [FILE_TYPE],
        modelName: "text",
        preferKernel: true,
        canStartKernel: true,
        translator: translator ?? nullTranslator,
      },
      () => settings,
    );
    app.docRegistry.addWidgetFactory(factory);
    const tracker = new WidgetTracker<CiteflowEditor>({ namespace: "citeflow" });
    factory.widgetCreated.connect((_, w) => {
      w.content.state.openAsText = () => void app.commands.execute("docmanager:open", { path: w.context.path, factory: "Editor" });
      w.content.state.confirmServers = (servers) => confirmServers(w.context.path, servers);
      let path = w.context.path;
      w.context.pathChanged.connect(() => ((path = w.context.path), void tracker.save(w)));
      w.disposed.connect(() => void endKernel(app, tracker, path, w));
      void tracker.add(w);
    });
    if (restorer) void restorer.restore(tracker, { command: "docmanager:open", args: (w) => ({ path: w.context.path, factory: FACTORY }), name: (w) => w.context.path });

    const cwd = () => browser?.model.path ?? "";
    /** Writes a new pipeline file next to the file browser's folder and opens it in the editor. */
    const createFile = async (doc: GraphDoc, name = doc.name, dir = cwd()): Promise<CiteflowEditor> => {
      const model = await app.serviceManager.contents.newUntitled({ path: dir, type: "file", ext: ".citeflow.json" });
      const stem = slug(name);
      let path = model.path;
      try {
        path = (await app.serviceManager.contents.rename(model.path, PathExt.join(dir, `${stem}.citeflow.json`))).path;
      } catch {
        // the name is taken: keep the untitled name
      }
      await app.serviceManager.contents.save(path, { type: "file", format: "text", content: saveGraph(doc) });
      return (await app.commands.execute("docmanager:open", { path, factory: FACTORY })) as CiteflowEditor;
    };

    addCommands({ app, tracker, createFile, launcher, mainMenu, palette });

    const openInEditor: OpenInEditor = async (bundle) => {
      const editor = await createFile(bundle.graph);
      await editor.context.ready;
      if (bundle.question) editor.content.state.question = bundle.question;
      await editor.context.sessionContext.ready;
      await editor.content.state.openRun(bundle.runId).catch((e: Error) => {
        editor.content.state.error = trans.__("Run %1 is not in this kernel's run store (%2)", bundle.runId, e.message);
        editor.content.state.emit();
      });
    };
    rendermime.addFactory({ safe: true, mimeTypes: [CITEFLOW_MIME], defaultRank: 10, createRenderer: () => new RunRenderer(openInEditor) }, 10);
    return tracker;
  },
};
