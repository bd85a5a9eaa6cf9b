// Breaks SCHEMA-3: the choice between file_path and latest is in the handler, but its refusal
// names only one of the alternatives, so the model never learns it could pass latest.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

const SPEC = { file_path: { type: "string", optional: true }, latest: { type: "boolean", optional: true } };

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "ShareDiagram",
    label: "Share diagram",
    description: "Shares a diagram file, or the latest generated diagram.",
    parameters: Type.Object({
      file_path: Type.Optional(Type.String({ description: "The diagram file to share." })),
      latest: Type.Optional(Type.Boolean({ description: "Share the latest generated diagram instead." })),
    }),
    execute: async (_callId, params) => {
      const keys = Object.keys(params);
      // An unknown name beside a known one is refused; an unknown-only call falls through to the choice.
      if (keys.some((key) => key in SPEC)) {
        const refused = refusal(params, SPEC);
        if (refused) return result(refused);
      }
      if (params.file_path === undefined && params.latest !== true) {
        return result("Nothing to share: set file_path.");
      }
      return result(params.latest ? "shared the latest diagram" : `shared ${params.file_path}`);
    },
  }));
}
