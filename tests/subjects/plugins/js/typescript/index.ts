// A TypeScript plugin: loaded through jiti, resolved from the plugin's own folder.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

interface Result {
  content: { type: "text"; text: string }[];
  details: Record<string, unknown>;
}

const result = (text: string): Result => ({ content: [{ type: "text", text }], details: {} });

export function register(ctx: { registerTool: (tool: unknown) => void }): void {
  ctx.registerTool(defineTool({
    name: "TsTool",
    label: "TypeScript tool",
    description: "Doubles a number.",
    parameters: Type.Object({ n: Type.Number({ description: "Number to double." }) }),
    execute: async (_callId: string, params: { n: number }): Promise<Result> => result(String(params.n * 2)),
  }));
}
