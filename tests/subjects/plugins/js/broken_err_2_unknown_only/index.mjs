// Breaks ERR-2 alone: an unknown parameter (valid under a schema that allows extras) makes the
// handler throw instead of refusing with text. Every argument that breaks the schema is refused.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "Uptime",
    label: "Uptime",
    description: "Says how long a service has been up; the kit's own when none is named.",
    parameters: Type.Object({
      service: Type.Optional(Type.String({ description: "Service to ask about." })),
    }),
    execute: async (_callId, params) => {
      for (const name of Object.keys(params)) {
        if (name !== "service") throw new Error(`unexpected ${name}`);
      }
      if (params.service !== undefined && typeof params.service !== "string") return result("service must be a string");
      return result(`${params.service ?? "kit"}: up 3 days`);
    },
  }));
}
