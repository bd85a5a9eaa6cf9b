// Breaks SCHEMA-2: a hand-written schema with a type JSON Schema does not know ("text").
import { defineTool } from "@earendil-works/pi-coding-agent";
import { refusal, result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "Echo",
    label: "Echo",
    description: "Returns the supplied text.",
    parameters: {
      type: "object",
      required: ["value"],
      properties: { value: { type: "text", description: "Text to return." } },
    },
    execute: async (_callId, params) => result(refusal(params, { value: { type: "string" } }) ?? params.value),
  }));
}
