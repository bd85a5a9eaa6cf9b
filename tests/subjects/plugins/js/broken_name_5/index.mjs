// Breaks NAME-5: an alias filePath is kept beside file_path "for old callers".
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { readFile } from "node:fs/promises";
import { refusal, result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "ReadNote",
    label: "Read note",
    description: "Reads one note file.",
    parameters: Type.Object({
      file_path: Type.String({ description: "The note file to read." }),
      filePath: Type.Optional(Type.String({ description: "Deprecated: the old name of file_path." })),
    }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { file_path: { type: "string" }, filePath: { type: "string", optional: true } });
      if (refused) return result(refused);
      try {
        return result(await readFile(params.file_path, "utf8"));
      } catch (error) {
        return result(`file_path ${params.file_path} cannot be read (${error.code ?? error.message})`);
      }
    },
  }));
}
