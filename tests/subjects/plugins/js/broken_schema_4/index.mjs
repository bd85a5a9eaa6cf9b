// Breaks SCHEMA-4: the handler trusts its params; a wrong type or a missing count is "doubled" anyway.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "Double",
    label: "Double",
    description: "Doubles a number.",
    parameters: Type.Object({ count: Type.Number({ description: "The number to double." }) }),
    execute: async (_callId, params) => result(`Result: ${Number(params.count) * 2}`),
  }));
}
