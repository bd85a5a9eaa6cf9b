// Breaks MANIFEST-3: provides.tools lists Ghost, which is never registered, and leaves out Shout.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

const echo = (name, transform) => defineTool({
  name,
  label: name,
  description: "Returns the supplied text.",
  parameters: Type.Object({ value: Type.String({ description: "Text to return." }) }),
  execute: async (_callId, params) => result(refusal(params, { value: { type: "string" } }) ?? transform(params.value)),
});

export function register(ctx) {
  ctx.registerTool(echo("Echo", (text) => text));
  ctx.registerTool(echo("Shout", (text) => text.toUpperCase()));
}
