// Breaks SCOPE-4: captures identity and access while registering and reuses them later.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

export function register(ctx) {
  const identity = ctx.currentIdentity();
  const access = ctx.currentAccess();
  ctx.registerTool(defineTool({
    name: "WhoAmI",
    label: "Who am I",
    description: "Answers from identity captured at registration.",
    parameters: Type.Object({}),
    execute: async () => ({
      content: [{ type: "text", text: String(identity?.userId) }],
      details: { identity, access },
    }),
  }));
}
