// One tool busy-loops forever (blocks the event loop), one answers at once.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "Spin",
    label: "Spin",
    description: "Never returns.",
    parameters: Type.Object({}),
    execute: () => {
      for (;;) {
        // busy
      }
    },
  }));
  ctx.registerTool(defineTool({
    name: "Quick",
    label: "Quick",
    description: "Returns at once.",
    parameters: Type.Object({}),
    execute: async () => ({ content: [{ type: "text", text: `pid ${process.pid}` }], details: {} }),
  }));
}
