// Breaks REG-3: results carry content but no details object.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal } from "../_lib/check.mjs";

const bare = (text) => ({ content: [{ type: "text", text }] });

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "Echo",
    label: "Echo",
    description: "Returns the supplied text.",
    parameters: Type.Object({ value: Type.String({ description: "Text to return." }) }),
    execute: async (_callId, params) => bare(refusal(params, { value: { type: "string" } }) ?? params.value),
  }));
}
