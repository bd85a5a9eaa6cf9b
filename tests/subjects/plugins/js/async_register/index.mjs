// An async register() plus tools the bridge tests exercise: round-trips, throws, cwd,
// unserializable results, registration options and live ctx reads at execution time.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import process from "node:process";

const text = (value, details = {}) => ({ content: [{ type: "text", text: value }], details });

export async function register(ctx) {
  await new Promise((resolve) => setTimeout(resolve, 10));
  ctx.registerTool(defineTool({
    name: "Echo",
    label: "Echo",
    description: "Returns its params as details.",
    parameters: Type.Object({ value: Type.Optional(Type.Any()) }),
    execute: async (callId, params) => text(`echo ${callId}`, { params }),
  }));
  ctx.registerTool(defineTool({
    name: "Boom",
    label: "Boom",
    description: "Always throws.",
    parameters: Type.Object({}),
    execute: async () => {
      const error = new RangeError("boom from JS");
      error.code = "E_BOOM";
      throw error;
    },
  }));
  ctx.registerTool(defineTool({
    name: "Cwd",
    label: "Cwd",
    description: "Returns the working directory the handler runs in.",
    parameters: Type.Object({}),
    execute: () => text(process.cwd()),
  }));
  ctx.registerTool(defineTool({
    name: "Weird",
    label: "Weird",
    description: "Returns a result JSON cannot carry.",
    parameters: Type.Object({}),
    execute: async () => ({ content: [{ type: "text", text: "x" }], details: { big: 10n } }),
  }));
  ctx.registerTool(defineTool({
    name: "External",
    label: "External",
    description: "Registered with a non-boolean external option.",
    parameters: Type.Object({}),
    execute: async () => text("external"),
  }), { external: "yes" });
  ctx.registerTool(defineTool({
    name: "Scoped",
    label: "Scoped",
    description: "Registered for one project on one platform.",
    parameters: Type.Object({}),
    execute: async () => text("scoped"),
  }), { projectId: "p1", platform: "web", external: false });
  ctx.registerTool(defineTool({
    name: "Identity",
    label: "Identity",
    description: "Reads identity and access at execution time.",
    parameters: Type.Object({}),
    execute: async () => {
      const identity = ctx.currentIdentity();
      const access = ctx.currentAccess();
      const account = ctx.currentAccountUserId();
      return text("identity", { identity, access, account });
    },
  }));
  ctx.logger.warn("async register done");
}
