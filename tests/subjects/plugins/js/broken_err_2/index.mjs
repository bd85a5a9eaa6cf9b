// Breaks ERR-2: a bad argument is thrown instead of answered as text the model can act on.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "Echo",
    label: "Echo",
    description: "Returns the supplied text.",
    parameters: Type.Object({ value: Type.String({ description: "Text to return." }) }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { value: { type: "string" } });
      if (refused) throw new TypeError(refused);
      return result(params.value);
    },
  }));
}
