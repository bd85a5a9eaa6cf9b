// A tool registered optional whose manifest's toolMetadata does not say so: OpenClaw's catalog, read from
// the manifest alone, takes it for a required tool. Verdict: conforms, with a MANIFEST-3 advisory.
import { Type } from "typebox";

const result = (text, details) => ({ content: [{ type: "text", text }], details });

export default function register(api) {
  api.registerTool(
    {
      name: "echo_text",
      label: "Echo text",
      description: "Returns the supplied text.",
      parameters: Type.Object({ text: Type.String({ description: "Text to return." }) }),
      async execute(_toolCallId, params) {
        if (typeof params?.text !== "string") return result("text must be a string", { refused: "text" });
        return result(params.text, {});
      },
    },
    { optional: true },
  );
}
