/** The pipeline editor's commands, and where they show: launcher, File › New, palette, context menus. */
import type { JupyterFrontEnd } from "@jupyterlab/application";
import type { ICommandPalette } from "@jupyterlab/apputils";
import type { ILauncher } from "@jupyterlab/launcher";
import type { IMainMenu } from "@jupyterlab/mainmenu";
import type { GraphDoc } from "@citeflow/core/browser";
import { trans } from "./i18n";
import { pipelineIcon } from "./icon";
import { emptyGraph } from "./model";
import { TEMPLATES } from "./templates";
import { storeStatus, storeStatusText } from "./store-status";
import { CommandIDs, type CiteflowEditor, type ICiteflowTracker } from "./tokens";

export interface CommandHost {
  app: JupyterFrontEnd;
  tracker: ICiteflowTracker;
  /** Writes a new pipeline file next to the file browser's folder and opens it in the editor. */
  createFile(doc: GraphDoc, name?: string): Promise<CiteflowEditor>;
  launcher: ILauncher | null;
  mainMenu: IMainMenu | null;
  palette: ICommandPalette | null;
}

export function addCommands({ app, tracker, createFile, launcher, mainMenu, palette }: CommandHost): void {
  const current = () => tracker.currentWidget?.content.state;
  const isActive = () => !!tracker.currentWidget && tracker.currentWidget === app.shell.currentWidget;

  app.commands.addCommand(CommandIDs.create, {
    label: (args) => (args.isLauncher ? trans.__("Citeflow Pipeline") : args.isMenu ? trans.__("Citeflow Pipeline") : trans.__("New Citeflow Pipeline")),
    caption: trans.__("Create a new Citeflow pipeline (*.citeflow.json)"),
    icon: pipelineIcon,
    execute: () => createFile(emptyGraph("pipeline")),
  });
  app.commands.addCommand(CommandIDs.fromTemplate, {
    // While the store is indexed, the launcher's cards say so: their runs search it once it is ready.
    label: (args) => {
      const name = TEMPLATES[String(args.template)]?.name ?? String(args.template ?? "");
      const indexing = args.isLauncher ? storeStatusText(storeStatus.current) : "";
      return indexing ? trans.__("New Pipeline from Template: %1 (%2)", name, indexing) : trans.__("New Pipeline from Template: %1", name);
    },
    // The launcher's card shows the icon; its tooltip, the template's own description (which system, which steps).
    caption: (args) => TEMPLATES[String(args.template)]?.description ?? trans.__("Copy a template graph into a new file and open it"),
    icon: pipelineIcon,
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
  for (const name of Object.keys(TEMPLATES)) launcher?.add({ command: CommandIDs.fromTemplate, args: { template: name, isLauncher: true }, category, rank: 2 });
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
}
