// SCHEMA-2 advisory only: Type.Any and Type.Null are not among the kinds the seam lists.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "Annotate",
    label: "Annotate",
    description: "Attaches a note to a record.",
    parameters: Type.Object({
      note: Type.String({ description: "The note." }),
      payload: Type.Optional(Type.Any({ description: "Anything to keep with the note." })),
      cleared: Type.Optional(Type.Null({ description: "Set to null to clear the record's notes." })),
    }),
    execute: async (_callId, params) => {
      const unknown = Object.keys(params).find((key) => !["note", "payload", "cleared"].includes(key));
      if (unknown) return result(`unknown parameter ${unknown}; expected note, payload, cleared`);
      if (typeof params.note !== "string") return result("note must be a string");
      if (params.cleared !== undefined && params.cleared !== null) return result("cleared must be null");
      return result(`noted ${params.note}`);
    },
  }));
}
