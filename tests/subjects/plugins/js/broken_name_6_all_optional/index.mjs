// Breaks NAME-6 alone: every parameter is optional and the schema allows extras (TypeBox's default),
// so an unknown-only call is valid and reaches the handler, which ignores it and answers with its
// default target. SCHEMA-4 holds: every argument that breaks the schema (a wrong type) is refused.
// One mistake, one rule (a pi tool with an optional version or path, as pi's own ls).
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { result } from "../_lib/check.mjs";

const RELEASES = { "1.0": "first release", "1.1": "faster search" };

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "ReleaseNotes",
    label: "Release notes",
    description: "Returns the notes of a release; the latest one when no version is given.",
    parameters: Type.Object({
      version: Type.Optional(Type.String({ description: "Release to describe, e.g. 1.0." })),
    }),
    execute: async (_callId, params) => {
      if (params.version !== undefined && typeof params.version !== "string") return result("version must be a string");
      const version = params.version ?? "1.1";
      const notes = RELEASES[version];
      return result(notes === undefined ? `no release ${version}; known: 1.0, 1.1` : `${version}: ${notes}`);
    },
  }));
}
