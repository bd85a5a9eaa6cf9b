// Breaks REG-2: two tools share one name; the host refuses the second registration.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

const echo = (label, transform) => defineTool({
  name: "Echo",
  label,
  description: "Returns the supplied text.",
  parameters: Type.Object({ value: Type.String({ description: "Text to return." }) }),
  execute: async (_callId, params) => result(refusal(params, { value: { type: "string" } }) ?? transform(params.value)),
});

export function register(ctx) {
  ctx.registerTool(echo("Echo", (text) => text));
  ctx.registerTool(echo("Echo loudly", (text) => text.toUpperCase()));
}
