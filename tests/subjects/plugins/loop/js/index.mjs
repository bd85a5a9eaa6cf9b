// A plugin author's JS plugin with one mistake (SCHEMA-4): execute trusts its params, so a call
// the host would have refused ("count" a string, or missing) is "doubled" anyway.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

const result = (text) => ({ content: [{ type: "text", text }], details: {} });

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "Double",
    label: "Double",
    description: "Doubles a number.",
    parameters: Type.Object({ count: Type.Number({ description: "The number to double." }) }),
    execute: async (_callId, params) => result(`Result: ${Number(params.count) * 2}`),
  }));
}
