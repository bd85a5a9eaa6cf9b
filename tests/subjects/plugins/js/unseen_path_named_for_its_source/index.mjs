// Breaks NAME-1 twice, where only the tool's own words or the call's needs say what a path is:
// NoteGet reads one note file by `relPath`, described for where it came from ("Relative path from a
// NoteList result"), and ExportNotes must be told the file it writes, `out` ("Where the export goes").
// NoteList's optional `path` is the folder it lists: a scope, named as NAME-2 says, and no file target.
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

const inside = (p) => typeof p === "string" && p !== "" && !p.startsWith("/") && !p.split("/").includes("..");

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "NoteGet",
    label: "Get note",
    description: "Read a specific note file from the notebook.",
    parameters: Type.Object({
      relPath: Type.String({ description: "Relative path from a NoteList result." }),
    }),
    execute: async (_callId, params) => {
      const wrong = refusal(params, { relPath: { type: "string" } });
      if (wrong) return result(wrong);
      if (!inside(params.relPath)) return result("relPath must be a relative path inside the notebook");
      try {
        return result(await readFile(params.relPath, "utf8"));
      } catch {
        return result(`no note at ${params.relPath}`);
      }
    },
  }));
  ctx.registerTool(defineTool({
    name: "NoteList",
    label: "List notes",
    description: "List the note files under a folder of the notebook.",
    parameters: Type.Object({
      path: Type.Optional(Type.String({ description: "Relative path from the notebook's top." })),
    }),
    execute: async (_callId, params) => {
      const wrong = refusal(params, { path: { type: "string", optional: true } });
      if (wrong) return result(wrong);
      const folder = params.path ?? ".";
      if (!inside(folder) && folder !== ".") return result("path must be a relative path inside the notebook");
      try {
        return result((await readdir(folder)).join("\n") || "(no notes)");
      } catch {
        return result(`no folder at ${folder}`);
      }
    },
  }));
  ctx.registerTool(defineTool({
    name: "ExportNotes",
    label: "Export notes",
    description: "Export every note into one Markdown file.",
    parameters: Type.Object({
      title: Type.String({ description: "The export's heading." }),
      out: Type.String({ description: "Output file to write." }),
    }),
    execute: async (_callId, params) => {
      const wrong = refusal(params, { title: { type: "string" }, out: { type: "string" } });
      if (wrong) return result(wrong);
      if (!inside(params.out)) return result("out must be a relative path inside the notebook");
      await mkdir(dirname(params.out), { recursive: true });
      await writeFile(params.out, `# ${params.title}\n`);
      return result(`exported to ${params.out}`);
    },
  }));
}
