// A conforming TypeScript plugin: the seam's example tool, typed, plus one with a file target.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { readFile } from "node:fs/promises";

interface Result {
  content: { type: "text"; text: string }[];
  details: Record<string, unknown>;
}

interface Ctx {
  registerTool: (tool: unknown) => void;
  logger: { info: (message: string) => void };
}

const result = (text: string, details: Record<string, unknown> = {}): Result => ({
  content: [{ type: "text", text }],
  details,
});

// Handlers validate again (SCHEMA-4) and refuse unknown parameters (NAME-6), naming them.
function unknownParameter(params: Record<string, unknown>, expected: string[]): string | null {
  const unknown = Object.keys(params).find((key) => !expected.includes(key));
  return unknown === undefined ? null : `unknown parameter ${unknown}; expected ${expected.join(", ")}`;
}

export function register(ctx: Ctx): void {
  ctx.registerTool(defineTool({
    name: "MyTool",
    label: "Example tool",
    description: "Returns the supplied text.",
    parameters: Type.Object({
      value: Type.String({ description: "Text to return." }),
    }),
    execute: async (_callId: string, params: Record<string, unknown>): Promise<Result> => {
      const unknown = unknownParameter(params, ["value"]);
      if (unknown) return result(unknown);
      if (typeof params.value !== "string") return result("value must be a string");
      return result(params.value);
    },
  }));

  ctx.registerTool(defineTool({
    name: "ReadNote",
    label: "Read note",
    description: "Reads a note file from the working directory.",
    parameters: Type.Object({
      file_path: Type.String({ description: "The note file to read, relative to the working directory." }),
    }),
    execute: async (_callId: string, params: Record<string, unknown>): Promise<Result> => {
      const unknown = unknownParameter(params, ["file_path"]);
      if (unknown) return result(unknown);
      if (typeof params.file_path !== "string") return result("file_path must be a string");
      try {
        return result(await readFile(params.file_path, "utf8"));
      } catch (error) {
        // A missing resource is an answer the model can act on (ERR-2), not a throw.
        return result(`file_path ${params.file_path} cannot be read: ${(error as Error).message}`);
      }
    },
  }));

  ctx.logger.info("typescript example tools registered");
}
