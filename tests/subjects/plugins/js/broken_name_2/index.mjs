// Breaks NAME-2: the search scope is called directory instead of path.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { readdir } from "node:fs/promises";
import { refusal, result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "FindNotes",
    label: "Find notes",
    description: "Lists the files of a directory whose names contain a pattern.",
    parameters: Type.Object({
      pattern: Type.String({ description: "Text the file name must contain." }),
      directory: Type.String({ description: "Directory to search." }),
    }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { pattern: { type: "string" }, directory: { type: "string" } });
      if (refused) return result(refused);
      try {
        const names = (await readdir(params.directory)).filter((name) => name.includes(params.pattern));
        return result(names.join("\n") || "no match");
      } catch (error) {
        return result(`directory ${params.directory} cannot be listed (${error.code ?? error.message})`);
      }
    },
  }));
}
