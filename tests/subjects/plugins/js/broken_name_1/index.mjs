// Breaks NAME-1: the primary single-file target is called filePath instead of file_path.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { readFile } from "node:fs/promises";
import { refusal, result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "ReadNote",
    label: "Read note",
    description: "Reads one note file.",
    parameters: Type.Object({ filePath: Type.String({ description: "The file to read." }) }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { filePath: { type: "string" } });
      if (refused) return result(refused);
      try {
        return result(await readFile(params.filePath, "utf8"));
      } catch (error) {
        return result(`filePath ${params.filePath} cannot be read (${error.code ?? error.message})`);
      }
    },
  }));
}
