// Breaks SCOPE-4: access is read at execution time, but only once, and kept for every later turn.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

let cached;

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "WhoAmI",
    label: "Who am I",
    description: "Says who the current turn runs as and which Projects it may use.",
    parameters: Type.Object({}),
    execute: async (_callId, params) => {
      const refused = refusal(params, {});
      if (refused) return result(refused);
      cached ??= { identity: ctx.currentIdentity(), access: ctx.currentAccess() };
      return result(`${cached.identity.userId} (projects: ${cached.access.projectIds.join(", ") || "none"})`);
    },
  }));
}
