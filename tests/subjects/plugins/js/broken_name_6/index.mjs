// Breaks NAME-6: unknown parameters are ignored, so a stale `dir` silently searches the default target.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { readdir } from "node:fs/promises";
import { result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "FindNotes",
    label: "Find notes",
    description: "Lists the files of a directory whose names contain a pattern.",
    parameters: Type.Object({
      pattern: Type.String({ description: "Text the file name must contain." }),
      path: Type.Optional(Type.String({ description: "Directory to search; the working directory if omitted." })),
    }),
    execute: async (_callId, params) => {
      if (typeof params.pattern !== "string") return result("pattern must be a string");
      if (params.path !== undefined && typeof params.path !== "string") return result("path must be a string");
      try {
        const names = (await readdir(params.path ?? ".")).filter((name) => name.includes(params.pattern));
        return result(names.join("\n") || "no match");
      } catch (error) {
        return result(`path ${params.path} cannot be listed (${error.code ?? error.message})`);
      }
    },
  }));
}
