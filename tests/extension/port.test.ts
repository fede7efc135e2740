/** The classes a port draws for the connection in progress (React Flow's handle classes, same rules). */
import { ConnectionMode } from "@xyflow/system";
import { describe, expect, it } from "vitest";
import { portClasses, type Connecting } from "../../extension/lib/port.js";

const idle: Connecting = { from: null, to: null, valid: false, click: null, mode: ConnectionMode.Strict };
const out = { nodeId: "retrieve", id: "passages", type: "source" as const };
const into = { nodeId: "select", id: "items", type: "target" as const };

describe("port classes", () => {
  it("marks every port as a possible start while no connection is drawn", () => {
    expect(portClasses(idle, "retrieve", "passages", "source")).toBe("connectionindicator");
    expect(portClasses(idle, "select", "items", "target")).toBe("connectionindicator");
  });

  it("in strict mode, only inputs can end a connection from an output", () => {
    const c = { ...idle, from: out };
    expect(portClasses(c, "retrieve", "passages", "source")).toBe("connectingfrom");
    expect(portClasses(c, "other", "passages", "source")).toBe("");
    expect(portClasses(c, "select", "items", "target")).toBe("connectionindicator");
  });

  it("marks the port under the pointer, valid or not", () => {
    expect(portClasses({ ...idle, from: out, to: into, valid: false }, "select", "items", "target")).toBe("connectingto connectionindicator");
    expect(portClasses({ ...idle, from: out, to: into, valid: true }, "select", "items", "target")).toBe("connectingto valid connectionindicator");
    // Same node and port id, other side: not the port under the pointer.
    expect(portClasses({ ...idle, from: out, to: into, valid: true }, "select", "items", "source")).toBe("");
  });

  it("in loose mode, any port but the starting one can end the connection", () => {
    const c = { ...idle, from: out, mode: ConnectionMode.Loose };
    expect(portClasses(c, "other", "passages", "source")).toBe("connectionindicator");
    expect(portClasses(c, "retrieve", "passages", "source")).toBe("connectingfrom");
  });

  it("marks the port a click connection started from", () => {
    expect(portClasses({ ...idle, click: out }, "retrieve", "passages", "source")).toBe("clickconnecting connectionindicator");
  });
});
