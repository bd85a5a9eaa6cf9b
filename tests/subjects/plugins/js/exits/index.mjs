// A tool that ends the whole process.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "Exit",
    label: "Exit",
    description: "Calls process.exit(3).",
    parameters: Type.Object({}),
    execute: () => {
      console.error("about to exit with 3");
      process.exit(3);
    },
  }));
  ctx.registerTool(defineTool({
    name: "Alive",
    label: "Alive",
    description: "Returns the pid.",
    parameters: Type.Object({}),
    execute: async () => ({ content: [{ type: "text", text: String(process.pid) }], details: {} }),
  }));
}
