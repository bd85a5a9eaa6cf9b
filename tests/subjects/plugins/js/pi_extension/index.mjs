// PI's extension form: a default function receiving the ExtensionAPI.
import { Type } from "typebox";

export default function (pi) {
  pi.on("session_start", async () => {});
  pi.registerTool({
    name: "greet",
    label: "Greet",
    description: "Greets someone by name.",
    parameters: Type.Object({ name: Type.String({ description: "Name to greet" }) }),
    async execute(_toolCallId, params, _signal, _onUpdate, _ctx) {
      return { content: [{ type: "text", text: `Hello, ${params.name}!` }], details: {} };
    },
  });
}
