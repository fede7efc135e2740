/**
 * Citeflow for JupyterLab: the `*.citeflow.json` pipeline editor (file type, widget factory,
 * launcher, File › New, palette commands, shortcuts, settings) and the notebook renderer for
 * Citeflow runs.
 */
import { ILayoutRestorer, type JupyterFrontEnd, type JupyterFrontEndPlugin } from "@jupyterlab/application";
import { ICommandPalette, WidgetTracker } from "@jupyterlab/apputils";
import { PathExt } from "@jupyterlab/coreutils";
import type { IDocumentWidget, DocumentRegistry } from "@jupyterlab/docregistry";
import { IDefaultFileBrowser } from "@jupyterlab/filebrowser";
import { ILauncher } from "@jupyterlab/launcher";
import { IMainMenu } from "@jupyterlab/mainmenu";
import { IRenderMimeRegistry } from "@jupyterlab/rendermime";
import { ISettingRegistry } from "@jupyterlab/settingregistry";
import { ITranslator, nullTranslator } from "@jupyterlab/translation";
import { CITEFLOW_MIME, type GraphDoc } from "@citeflow/core/browser";
import { setTranslationBundle, trans } from "./i18n";
import { emptyGraph, saveGraph, slug } from "./model";
import { RunRenderer, type OpenInEditor } from "./render";
import { TEMPLATES } from "./templates";
import { confirmServers } from "./consent";
import { CiteflowFactory, FACTORY, FILE_TYPE, type CiteflowPanel } from "./widget";

const PLUGIN_ID = "@citeflow/jupyterlab:plugin";

export const CommandIDs = {
  create: "citeflow:new",
  fromTemplate: "citeflow:new-from-template",
  run: "citeflow:run",
  runTo: "citeflow:run-to",
  runFrom: "citeflow:run-from",
  runOnly: "citeflow:run-node",
  breakpoint: "citeflow:toggle-breakpoint",
  stop: "citeflow:stop",
  undo: "citeflow:undo",
  redo: "citeflow:redo",
  copy: "citeflow:copy",
  cut: "citeflow:cut",
  remove: "citeflow:delete",
  paste: "citeflow:paste",
  selectAll: "citeflow:select-all",
  layout: "citeflow:auto-layout",
} as const;

type Editor = IDocumentWidget<CiteflowPanel, DocumentRegistry.ICodeModel>;

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: "Citeflow pipeline editor and run renderer",
  autoStart: true,
  requires: [IRenderMimeRegistry],
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
      iconClass: "cf-file-icon",
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
    const tracker = new WidgetTracker<Editor>({ namespace: "citeflow" });
    factory.widgetCreated.connect((_, w) => {
      w.content.state.openAsText = () => void app.commands.execute("docmanager:open", { path: w.context.path, factory: "Editor" });
      w.content.state.confirmServers = (servers) => confirmServers(w.context.path, servers);
      w.context.pathChanged.connect(() => void tracker.save(w));
      void tracker.add(w);
    });
    if (restorer) void restorer.restore(tracker, { command: "docmanager:open", args: (w) => ({ path: w.context.path, factory: FACTORY }), name: (w) => w.context.path });

    const cwd = () => browser?.model.path ?? "";
    /** Writes a new pipeline file next to the file browser's folder and opens it in the editor. */
    const createFile = async (doc: GraphDoc, name = doc.name, dir = cwd()): Promise<Editor> => {
      const model = await app.serviceManager.contents.newUntitled({ path: dir, type: "file", ext: ".citeflow.json" });
      const stem = slug(name);
      let path = model.path;
      try {
        path = (await app.serviceManager.contents.rename(model.path, PathExt.join(dir, `${stem}.citeflow.json`))).path;
      } catch {
        // the name is taken: keep the untitled name
      }
      await app.serviceManager.contents.save(path, { type: "file", format: "text", content: saveGraph(doc) });
      return (await app.commands.execute("docmanager:open", { path, factory: FACTORY })) as Editor;
    };

    const current = () => tracker.currentWidget?.content.state;
    const isActive = () => !!tracker.currentWidget && tracker.currentWidget === app.shell.currentWidget;

    app.commands.addCommand(CommandIDs.create, {
      label: (args) => (args.isLauncher ? trans.__("Citeflow Pipeline") : args.isMenu ? trans.__("Citeflow Pipeline") : trans.__("New Citeflow Pipeline")),
      caption: trans.__("Create a new Citeflow pipeline (*.citeflow.json)"),
      iconClass: "cf-file-icon",
      execute: () => createFile(emptyGraph("pipeline")),
    });
    app.commands.addCommand(CommandIDs.fromTemplate, {
      label: (args) => trans.__("New Pipeline from Template: %1", TEMPLATES[String(args.template)]?.name ?? String(args.template ?? "")),
      caption: trans.__("Copy a template graph into a new file and open it"),
      execute: (args) => {
        const t = TEMPLATES[String(args.template)];
        if (!t) throw new Error(`no template "${String(args.template)}" (templates: ${Object.keys(TEMPLATES).join(", ")})`);
        return createFile(t, String(args.template));
      },
    });
    app.commands.addCommand(CommandIDs.run, { label: trans.__("Run Pipeline"), isEnabled: isActive, execute: () => current()?.start() });
    const can = (kind: "to" | "from" | "only") => () => isActive() && !!current()?.canStart(kind);
    const startAt = (kind: "to" | "from" | "only") => () => current()?.startAtSelected(kind);
    app.commands.addCommand(CommandIDs.runTo, { label: trans.__("Run to Selected Node"), isEnabled: can("to"), execute: startAt("to") });
    app.commands.addCommand(CommandIDs.runFrom, { label: trans.__("Run from Selected Node"), isEnabled: can("from"), execute: startAt("from") });
    app.commands.addCommand(CommandIDs.runOnly, { label: trans.__("Run Selected Node Only"), isEnabled: can("only"), execute: startAt("only") });
    app.commands.addCommand(CommandIDs.breakpoint, {
      label: trans.__("Toggle Breakpoint"),
      isEnabled: () => isActive() && !!current()?.selected,
      isToggled: () => {
        const s = current();
        return !!s?.selected && s.breakpoints.has(s.selected);
      },
      execute: () => current()?.toggleBreakpoint(),
    });
    app.commands.addCommand(CommandIDs.stop, { label: trans.__("Stop Pipeline Run"), isEnabled: isActive, execute: () => current()?.control("abort") });
    app.commands.addCommand(CommandIDs.undo, { label: trans.__("Undo Pipeline Edit"), isEnabled: () => isActive() && !!current()?.canUndo, execute: () => current()?.undo() });
    app.commands.addCommand(CommandIDs.redo, { label: trans.__("Redo Pipeline Edit"), isEnabled: () => isActive() && !!current()?.canRedo, execute: () => current()?.redo() });
    const hasSelection = () => isActive() && !!current()?.selection.size;
    app.commands.addCommand(CommandIDs.copy, { label: trans.__("Copy Selected Nodes"), isEnabled: hasSelection, execute: () => void current()?.copy() });
    app.commands.addCommand(CommandIDs.cut, { label: trans.__("Cut Selected Nodes"), isEnabled: hasSelection, execute: () => current()?.cut() });
    app.commands.addCommand(CommandIDs.remove, { label: trans.__("Delete Selected Nodes"), isEnabled: hasSelection, execute: () => current()?.deleteNodes(current()!.selection) });
    app.commands.addCommand(CommandIDs.paste, { label: trans.__("Paste Nodes"), isEnabled: isActive, execute: () => current()?.paste() });
    app.commands.addCommand(CommandIDs.selectAll, { label: trans.__("Select All Nodes"), isEnabled: isActive, execute: () => current()?.selectAll() });
    app.commands.addCommand(CommandIDs.layout, { label: trans.__("Auto-layout Pipeline"), isEnabled: isActive, execute: () => current()?.layout() });

    const category = trans.__("Citeflow");
    launcher?.add({ command: CommandIDs.create, category: trans.__("Other"), rank: 1 });
    for (const name of Object.keys(TEMPLATES)) launcher?.add({ command: CommandIDs.fromTemplate, args: { template: name }, category, rank: 2 });
    mainMenu?.fileMenu.newMenu.addGroup([{ command: CommandIDs.create }], 40);
    const { runTo, runFrom, runOnly, breakpoint, copy, cut, remove, paste, selectAll, layout } = CommandIDs;
    for (const id of [CommandIDs.create, CommandIDs.run, runTo, runFrom, runOnly, breakpoint, CommandIDs.stop, CommandIDs.undo, CommandIDs.redo, copy, cut, paste, remove, selectAll, layout])
      palette?.addItem({ command: id, category });
    // Context menus, as elsewhere in JupyterLab: a right-click on a node selects it (see the canvas).
    // JupyterLab orders a menu by rank alone, and a node lies inside the pane: the node's groups
    // come first, then the canvas's (alone on the empty canvas).
    const groups: [string, string[]][] = [
      [".cf-editor .react-flow__node", [runTo, runFrom, runOnly, breakpoint]],
      [".cf-editor .react-flow__node", [copy, cut, remove]],
      [".cf-editor .react-flow__pane", [paste, selectAll, layout]],
    ];
    groups.forEach(([selector, commands], g) => {
      if (g) app.contextMenu.addItem({ type: "separator", selector, rank: 10 * g });
      commands.forEach((command, i) => app.contextMenu.addItem({ command, selector, rank: 10 * g + 1 + i }));
    });
    for (const name of Object.keys(TEMPLATES)) palette?.addItem({ command: CommandIDs.fromTemplate, args: { template: name }, category });

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
  },
};

export default plugin;
