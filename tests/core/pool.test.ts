/** mapInOrder: at most N in flight, results and emits in the items' order. */
import { describe, expect, it } from "vitest";
import { mapInOrder } from "@citeflow/core";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("mapInOrder", () => {
  it("keeps at most `limit` in flight and hands results back in order, whatever order they finish in", async () => {
    let inFlight = 0;
    let most = 0;
    const emitted: number[] = [];
    const delays = [40, 5, 30, 1, 20, 10, 2, 15];
    const out = await mapInOrder(
      delays,
      3,
      async (ms, i) => {
        most = Math.max(most, ++inFlight);
        await sleep(ms);
        inFlight--;
        return i * 10;
      },
      (r, i) => emitted.push(i, r),
    );
    expect(out).toEqual([0, 10, 20, 30, 40, 50, 60, 70]);
    expect(most).toBe(3);
    expect(emitted).toEqual([0, 0, 1, 10, 2, 20, 3, 30, 4, 40, 5, 50, 6, 60, 7, 70]);
  });

  it("one at a time is sequential", async () => {
    const order: string[] = [];
    await mapInOrder(["a", "b", "c"], 1, async (x) => {
      order.push(`start ${x}`);
      await sleep(1);
      order.push(`end ${x}`);
    });
    expect(order).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });

  it("a failure stops new work, lets what is in flight finish, and is thrown", async () => {
    const started: number[] = [];
    await expect(
      mapInOrder([0, 1, 2, 3, 4, 5], 2, async (i) => {
        started.push(i);
        if (i === 1) throw new Error("item 1 failed");
        await sleep(5);
        return i;
      }),
    ).rejects.toThrow("item 1 failed");
    expect(started).toEqual([0, 1]);
    await expect(mapInOrder([1], 0, async (x) => x)).rejects.toThrow(/give a whole number of 1 or more/);
  });
});
