// An entry object with register, as OpenClaw's loader resolves it (id, name and register, nothing
// imported from the SDK). Verdict: conforms.
import { Type } from "typebox";

const result = (text, details) => ({ content: [{ type: "text", text }], details });

export default {
  id: "register-object",
  name: "Register object",
  register(api) {
    api.registerTool(
      {
        name: "echo_text",
        label: "Echo text",
        description: "Returns the supplied text.",
        parameters: Type.Object({ text: Type.String({ description: "Text to return." }) }),
        async execute(_toolCallId, params) {
          if (typeof params?.text !== "string") return result("text must be a string", { refused: "text" });
          return result(params.text, { length: params.text.length });
        },
      },
      { name: "echo_text" },
    );
  },
};
