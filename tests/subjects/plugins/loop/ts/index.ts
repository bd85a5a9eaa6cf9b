// A pi extension in TypeScript (pi's form: a default function receiving the ExtensionAPI) with one
// mistake (REG-3): a refusal is returned without `details`.
import { Type } from "typebox";

interface Result {
  content: { type: "text"; text: string }[];
  details?: Record<string, unknown>;
}

interface ExtensionAPI {
  registerTool(tool: unknown): void;
}

export default function (pi: ExtensionAPI): void {
  pi.registerTool({
    name: "Greet",
    label: "Greet",
    description: "Greets someone by name.",
    parameters: Type.Object({ name: Type.String({ description: "Name to greet." }) }),
    async execute(_toolCallId: string, params: { name?: unknown }): Promise<Result> {
      if (typeof params.name !== "string") {
        return { content: [{ type: "text", text: "name must be a string" }] };
      }
      return { content: [{ type: "text", text: `Hello, ${params.name}!` }], details: {} };
    },
  });
}
