// GRANT-2 advisory only: the tool adds its own identity.owner check instead of relying on the grant.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "ResetCounters",
    label: "Reset counters",
    description: "Resets this plugin's usage counters.",
    parameters: Type.Object({}),
    execute: async (_callId, params) => {
      const refused = refusal(params, {});
      if (refused) return result(refused);
      if (!ctx.currentIdentity().owner) return result("Only the instance owner may reset the counters.");
      return result("counters reset");
    },
  }));
}
