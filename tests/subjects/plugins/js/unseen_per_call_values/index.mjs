// Each answer carries what differs per call: a fresh temporary folder, a timestamp, a generated id and
// a duration. Beneath them, Snapshot ignores a wrong-type label (breaks SCHEMA-4: it answers the
// schema-breaking call as it answers `{}`) and Export ignores unknown parameters, so a stale
// `output_dir` in place of `path` silently exports to the default target (breaks NAME-6). Each checks
// everything else: Snapshot refuses unknown parameters, Export refuses wrong types.
import { randomUUID } from "node:crypto";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { result } from "../_lib/check.mjs";

const NOTES = ["buy milk", "call the bank"];

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "Snapshot",
    label: "Snapshot",
    description: "Takes a snapshot of the notes, with an optional label.",
    parameters: Type.Object({
      label: Type.Optional(Type.String({ description: "A label for the snapshot; 'untitled' if omitted." })),
    }),
    execute: async (_callId, params) => {
      const started = Date.now();
      const extra = Object.keys(params).find((key) => key !== "label");
      if (extra) return result(`unknown parameter ${extra}; expected label`);
      const label = typeof params.label === "string" ? params.label : "untitled";
      const folder = await mkdtemp(join(tmpdir(), "snapshot-"));
      await writeFile(join(folder, "notes.json"), JSON.stringify(NOTES));
      const took = Date.now() - started + 3;
      return result(
        `snapshot ${randomUUID()} '${label}' of ${NOTES.length} notes taken ${new Date().toISOString()} `
        + `into ${folder} (${took}ms)`,
      );
    },
  }));
  ctx.registerTool(defineTool({
    name: "Export",
    label: "Export",
    description: "Exports the notes as JSON into a directory; a fresh temporary directory if omitted.",
    parameters: Type.Object({
      path: Type.Optional(Type.String({ description: "Directory to export into." })),
    }),
    execute: async (_callId, params) => {
      const started = Date.now();
      if (params.path !== undefined && typeof params.path !== "string") return result("path must be a string");
      const folder = params.path ?? await mkdtemp(join(tmpdir(), "export-"));
      try {
        await writeFile(join(folder, "notes.json"), JSON.stringify(NOTES));
      } catch (error) {
        return result(`path ${params.path} cannot be written (${error.code ?? error.message})`);
      }
      const took = Date.now() - started + 2;
      return result(
        `export ${randomUUID()}: ${NOTES.length} notes written to ${join(folder, "notes.json")} `
        + `at ${new Date().toISOString()} in ${took}ms`,
      );
    },
  }));
}
