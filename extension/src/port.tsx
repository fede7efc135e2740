/**
 * Port handles without a store subscription each.
 *
 * React Flow's `<Handle>` subscribes to the store to draw the connecting states, and every store
 * change runs every subscription: on a 100-node graph that is 200 subscriptions run two or three
 * times a frame while a node is dragged past the pane's edge. Here one subscription at the canvas
 * (`ConnectingState`) follows the connection in progress, through a context that changes only when
 * a connection starts, reaches or leaves a port, or ends; the ports read it. A port keeps React
 * Flow's DOM contract (classes and data attributes), which its edge routing, handle measuring and
 * connection validation read, and starts connections through @xyflow/system's `XYHandle`, as
 * React Flow's handle does, by drag or by click.
 */
import { Position, useNodeId, useStore, useStoreApi, type Connection, type Edge, type ReactFlowState } from "@xyflow/react";
import { ConnectionMode, XYHandle, getHostForElement, isMouseEvent, type HandleType } from "@xyflow/system";
import { createContext, useContext, type CSSProperties, type MouseEvent, type ReactNode, type TouchEvent } from "react";

interface PortRef {
  nodeId: string;
  id: string | null;
  type: HandleType;
}

/** The connection in progress, as the ports draw it. */
export interface Connecting {
  from: PortRef | null;
  to: PortRef | null;
  valid: boolean;
  click: PortRef | null;
  mode: ConnectionMode;
}

const IDLE: Connecting = { from: null, to: null, valid: false, click: null, mode: ConnectionMode.Strict };
const Ctx = createContext<Connecting>(IDLE);

/** A handle as React Flow's store holds it (its id may be missing). */
type StoreHandle = { nodeId: string; id?: string | null; type: HandleType } | null | undefined;

const ref = (r: StoreHandle): PortRef | null => (r ? { nodeId: r.nodeId, id: r.id ?? null, type: r.type } : null);
const same = (r: PortRef | null, nodeId: string, id: string | null, type: HandleType) => !!r && r.nodeId === nodeId && r.id === id && r.type === type;
const sameRef = (a: PortRef | null, b: PortRef | null) => (a && b ? same(a, b.nodeId, b.id, b.type) : a === b);

function connecting(s: ReactFlowState): Connecting {
  const { fromHandle, toHandle, isValid } = s.connection;
  const click = s.connectionClickStartHandle;
  if (!fromHandle && !click) return IDLE;
  return { from: ref(fromHandle), to: ref(toHandle), valid: !!isValid, click: ref(click), mode: s.connectionMode };
}

/** Equal when the ports would draw the same (a pointer move alone changes nothing). */
const sameConnecting = (a: Connecting, b: Connecting) => a === b || (sameRef(a.from, b.from) && sameRef(a.to, b.to) && a.valid === b.valid && sameRef(a.click, b.click) && a.mode === b.mode);

/** The canvas's one subscription for its ports; wrap the `<ReactFlow>` in it. */
export function ConnectingState({ children }: { children: ReactNode }) {
  return <Ctx.Provider value={useStore(connecting, sameConnecting)}>{children}</Ctx.Provider>;
}

/** React Flow's classes for a port in this connection state. */
export function portClasses(c: Connecting, nodeId: string, id: string | null, type: HandleType): string {
  // Every port may start a connection; while one is drawn, those that may end it.
  const possibleEnd = !c.from || (c.mode === ConnectionMode.Strict ? c.from.type !== type : nodeId !== c.from.nodeId || id !== c.from.id);
  const to = same(c.to, nodeId, id, type);
  const flags: [string, boolean][] = [
    ["clickconnecting", same(c.click, nodeId, id, type)],
    ["connectingfrom", same(c.from, nodeId, id, type)],
    ["connectingto", to],
    ["valid", to && c.valid],
    ["connectionindicator", possibleEnd],
  ];
  return flags
    .filter(([, on]) => on)
    .map(([name]) => name)
    .join(" ");
}

export interface PortProps {
  type: HandleType;
  id: string;
  className?: string;
  style?: CSSProperties;
  title?: string;
  "data-type"?: string;
}

/** A connectable port on a node's left (inputs) or right (outputs) edge. */
export function Port({ type, id, className, ...rest }: PortProps) {
  const nodeId = useNodeId();
  const store = useStoreApi();
  const state = useContext(Ctx);
  if (!nodeId) throw new Error(`Port ${id} is outside a React Flow node`);
  const position = type === "target" ? Position.Left : Position.Right;
  const { rfId, noPanClassName } = store.getState();

  // The document is the graph's source of truth: a connection goes to the canvas's onConnect, which
  // edits the document, and the edge reaches React Flow from there.
  const connect = (c: Connection) => store.getState().onConnect?.(c);
  const isValidConnection = (c: Connection | Edge) => store.getState().isValidConnection?.(c) ?? true;

  const onPointerDown = (event: MouseEvent | TouchEvent) => {
    const native = event.nativeEvent;
    if (isMouseEvent(native) && native.button !== 0) return;
    const s = store.getState();
    XYHandle.onPointerDown(native, {
      handleDomNode: event.currentTarget,
      autoPanOnConnect: s.autoPanOnConnect,
      connectionMode: s.connectionMode,
      connectionRadius: s.connectionRadius,
      domNode: s.domNode,
      nodeLookup: s.nodeLookup,
      lib: s.lib,
      isTarget: type === "target",
      handleId: id,
      nodeId,
      flowId: s.rfId,
      panBy: s.panBy,
      cancelConnection: s.cancelConnection,
      onConnectStart: s.onConnectStart,
      onConnectEnd: (...args) => store.getState().onConnectEnd?.(...args),
      updateConnection: s.updateConnection,
      onConnect: connect,
      isValidConnection,
      getTransform: () => store.getState().transform,
      getFromHandle: () => store.getState().connection.fromHandle,
      autoPanSpeed: s.autoPanSpeed,
      dragThreshold: s.connectionDragThreshold,
    });
  };

  // Click one port, then another: the same connection as a drag, for those who cannot drag. (The
  // canvas sets no click-connect callbacks, so none are called.)
  const onClick = (event: MouseEvent) => {
    const s = store.getState();
    if (!s.connectOnClick) return;
    const start = s.connectionClickStartHandle;
    if (!start) {
      store.setState({ connectionClickStartHandle: { nodeId, type, id } });
      return;
    }
    const { connection, isValid } = XYHandle.isValid(event.nativeEvent, {
      handle: { nodeId, id, type },
      connectionMode: s.connectionMode,
      fromNodeId: start.nodeId,
      fromHandleId: start.id ?? null,
      fromType: start.type,
      isValidConnection,
      flowId: s.rfId,
      doc: getHostForElement(event.target),
      lib: s.lib,
      nodeLookup: s.nodeLookup,
    });
    if (isValid && connection) connect(connection);
    store.setState({ connectionClickStartHandle: null });
  };

  const classes = [
    "react-flow__handle",
    `react-flow__handle-${position}`,
    "nodrag",
    noPanClassName,
    className,
    type,
    "connectable connectablestart connectableend",
    portClasses(state, nodeId, id, type),
  ];
  return (
    <div
      {...rest}
      data-handleid={id}
      data-nodeid={nodeId}
      data-handlepos={position}
      data-id={`${rfId}-${nodeId}-${id}-${type}`}
      className={classes.filter(Boolean).join(" ")}
      onMouseDown={onPointerDown}
      onTouchStart={onPointerDown}
      onClick={onClick}
    />
  );
}
