/**
 * Autopan while nodes are dragged past the pane's edge, with one React commit a frame.
 *
 * React Flow's own autopan pans the view and moves the dragged nodes once an animation frame, and
 * its drag handler moves them again on every mouse move: a frame that a mouse move reaches renders
 * twice (1.4 commits a frame over a drag past the edge), and those frames were the ones lost on a
 * 100-node graph. Here, while the pointer is in the edge zone, its moves are held back from React
 * Flow's drag handler; once a frame the view pans and the latest move is handed to that handler,
 * which puts the nodes under the pointer in the panned view. Both updates land in one task, so React
 * commits once. Inside the pane, moves pass through untouched. Touch drags keep React Flow's autopan.
 */
import { useStoreApi } from "@xyflow/react";
import { useEffect, useState, type MouseEvent as ReactMouseEvent } from "react";

/** How far from the pane's edge (px) the pan starts; at the edge and beyond it runs at full speed. */
export const EDGE_ZONE = 40;

/**
 * The pan along one axis for a pointer at `p` (px from the pane's start) in a pane `size` px long:
 * towards the near edge's side, growing linearly from 0 at `zone` px inside to `max` at the edge.
 */
export function edgePan(p: number, size: number, max: number, zone = EDGE_ZONE): number {
  if (p < zone) return (max * Math.min(zone - p, zone)) / zone;
  if (p > size - zone) return (-max * Math.min(p - (size - zone), zone)) / zone;
  return 0;
}

type Store = ReturnType<typeof useStoreApi>;
type DragStart = MouseEvent | TouchEvent | ReactMouseEvent;
type Start = (e: DragStart) => void;

class EdgeAutopan {
  #bounds: DOMRect | undefined;
  #last: MouseEvent | undefined;
  /** A move held back that no frame has handed on yet. */
  #held = false;
  #frame = 0;
  #handing = false;
  #touch = false;

  constructor(private readonly store: Store) {}

  /** Listens on the window in the capture phase, registered before any drag: ahead of React Flow's. */
  listen(): () => void {
    const move = (e: MouseEvent) => this.#move(e);
    const up = () => this.#drop();
    window.addEventListener("mousemove", move, true);
    window.addEventListener("mouseup", up, true);
    return () => {
      window.removeEventListener("mousemove", move, true);
      window.removeEventListener("mouseup", up, true);
      this.stop();
    };
  }

  start = (event: DragStart): void => {
    this.stop();
    // React Flow passes the DOM event, though its selection drag's type says React's.
    const e = "nativeEvent" in event ? event.nativeEvent : event;
    if (!(e instanceof MouseEvent)) {
      this.#touch = true;
      this.store.setState({ autoPanOnNodeDrag: true });
      return;
    }
    const pane = this.store.getState().domNode;
    if (!pane) return;
    this.#bounds = pane.getBoundingClientRect();
    this.#last = e;
    this.#frame = requestAnimationFrame(this.#tick);
  };

  stop = (): void => {
    cancelAnimationFrame(this.#frame);
    this.#bounds = this.#last = undefined;
    this.#held = false;
    if (this.#touch) this.store.setState({ autoPanOnNodeDrag: false });
    this.#touch = false;
  };

  /** The drag handlers to give `<ReactFlow>` (with `autoPanOnNodeDrag={false}`). */
  readonly handlers: { onNodeDragStart: Start; onNodeDragStop: () => void; onSelectionDragStart: Start; onSelectionDragStop: () => void } = {
    onNodeDragStart: this.start,
    onNodeDragStop: this.stop,
    onSelectionDragStart: this.start,
    onSelectionDragStop: this.stop,
  };

  #pan(e: MouseEvent): [number, number] {
    const b = this.#bounds!;
    const speed = this.store.getState().autoPanSpeed;
    return [edgePan(e.clientX - b.left, b.width, speed), edgePan(e.clientY - b.top, b.height, speed)];
  }

  #move(e: MouseEvent): void {
    if (!this.#bounds || this.#handing) return;
    if (!(e.buttons & 1)) return this.stop();
    this.#last = e;
    const [x, y] = this.#pan(e);
    // In the edge zone the next frame's pan hands this move on, after panning.
    if (x || y) {
      e.stopImmediatePropagation();
      this.#held = true;
    }
  }

  /** The button is released: a move still held back reaches the drag first, so the drop is where the pointer is. */
  #drop(): void {
    if (this.#held) this.#hand(this.#last!);
    this.stop();
  }

  #hand(e: MouseEvent): void {
    this.#held = false;
    this.#handing = true;
    try {
      window.dispatchEvent(new MouseEvent("mousemove", e));
    } finally {
      this.#handing = false;
    }
  }

  #tick = (): void => {
    this.#frame = requestAnimationFrame(this.#tick);
    const e = this.#last!;
    const [x, y] = this.#pan(e);
    if (!x && !y) return;
    // The pan sets the store's transform synchronously; the move handed on below then reads it and
    // moves the nodes. No microtask runs between the two, so React renders them in one commit.
    void this.store.getState().panBy({ x, y });
    this.#hand(e);
  };
}

/** The drag handlers to give `<ReactFlow>` (with `autoPanOnNodeDrag={false}`), the same on every render. */
export function useEdgeAutopan(): EdgeAutopan["handlers"] {
  const store = useStoreApi();
  const [autopan] = useState(() => new EdgeAutopan(store));
  useEffect(() => autopan.listen(), [autopan]);
  return autopan.handlers;
}
