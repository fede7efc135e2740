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
      w.context.pathChanged.connect(() => void tracker.save(w));
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
