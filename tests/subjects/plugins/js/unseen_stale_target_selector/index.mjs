// Breaks NAME-6: `area` picks the folder a note is written into (inbox if omitted), and unknown
// parameters are ignored, so a call with the stale name `area_old` silently writes into the default
// folder instead: it does the default's work and reports it as done. Types are checked (SCHEMA-4 holds).
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "SaveNote",
    label: "Save note",
    description: "Saves a note into an area of the notebook.",
    parameters: Type.Object({
      text: Type.String({ description: "The note to save." }),
      area: Type.Optional(Type.Union([Type.Literal("inbox"), Type.Literal("archive")], {
        description: "The folder the note goes into; inbox if omitted.",
      })),
    }),
    execute: async (_callId, params) => {
      if (typeof params.text !== "string") return result("text must be a string");
      if (params.area !== undefined && params.area !== "inbox" && params.area !== "archive") {
        return result("area must be inbox or archive");
      }
      const area = params.area ?? "inbox";
      await mkdir(area, { recursive: true });
      await writeFile(join(area, "note.md"), params.text);
      return result(`saved the note to ${area}/note.md`);
    },
  }));
}
