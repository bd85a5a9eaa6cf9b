// A tool that never answers one call (its simplest, ms = 1) and throws for a bad
// argument. The hang is errored with its phase, and the throw is still seen: ERR-2 fails.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "Wait",
    label: "Wait",
    description: "Waits for the given number of milliseconds.",
    parameters: Type.Object({ ms: Type.Number({ description: "How long to wait, in milliseconds." }) }),
    execute: async (_callId, params) => {
      const extra = Object.keys(params).find((key) => key !== "ms");
      if (extra) return result(`unknown parameter ${extra}; expected ms`);
      if (typeof params.ms !== "number") throw new TypeError("ms must be a number");
      if (params.ms === 1) return new Promise(() => {}); // never settles
      return result(`waited ${Math.max(0, Math.min(params.ms, 0))} ms`);
    },
  }));
}
