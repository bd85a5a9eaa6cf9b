// Breaks SCHEMA-1: the root of the parameters is a union (anyOf), not one flat object.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "Lookup",
    label: "Lookup",
    description: "Looks a user up by id or by email.",
    parameters: Type.Union([
      Type.Object({ id: Type.String({ description: "User id." }) }),
      Type.Object({ email: Type.String({ description: "Email address." }) }),
    ]),
    execute: async (_callId, params) => result(`looked up ${params.id ?? params.email}`),
  }));
}
