import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

const result = (text) => ({
  content: [{ type: "text", text }],
  details: {}
});

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "MyTool",
    label: "Example tool",
    description: "Returns the supplied text.",
    parameters: Type.Object({
      value: Type.String({ description: "Text to return." })
    }),
    execute: async (_callId, params) => {
      if (typeof params.value !== "string") {
        return result("value must be a string");
      }
      return result(params.value);
    }
  }));

  ctx.logger.info("example tool registered");
}
