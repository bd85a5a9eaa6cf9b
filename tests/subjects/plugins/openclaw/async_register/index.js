// An entry whose register is async: OpenClaw refuses it ("plugin register must be synchronous").
// Verdict: REG-1 fails, with OpenClaw's words.
import { Type } from "typebox";

const result = (text, details) => ({ content: [{ type: "text", text }], details });

export default {
  id: "async-register",
  name: "Async register",
  async register(api) {
    await Promise.resolve();
    api.registerTool({
      name: "echo_text",
      label: "Echo text",
      description: "Returns the supplied text.",
      parameters: Type.Object({ text: Type.String({ description: "Text to return." }) }),
      async execute(_toolCallId, params) {
        return result(String(params?.text), {});
      },
    });
  },
};
