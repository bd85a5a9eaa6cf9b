// Breaks SCOPE-4: identity and access are read while registering.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

export function register(ctx) {
  const identity = ctx.currentIdentity();
  const access = ctx.currentAccess();
  ctx.registerTool(defineTool({
    name: "WhoAmI",
    label: "Who am I",
    description: "Says who the current turn runs as.",
    parameters: Type.Object({}),
    execute: async (_callId, params) =>
      result(refusal(params, {}) ?? `${identity.userId ?? "nobody"} (read-only: ${access.readOnly})`),
  }));
}
