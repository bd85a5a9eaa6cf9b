// Breaks REG-1: the entry exports registerTools, not register(ctx), so the host finds no entry point.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

export function registerTools(ctx) {
  ctx.registerTool(defineTool({
    name: "Echo",
    label: "Echo",
    description: "Returns the supplied text.",
    parameters: Type.Object({ value: Type.String({ description: "Text to return." }) }),
    execute: async (_callId, params) => result(refusal(params, { value: { type: "string" } }) ?? params.value),
  }));
}
