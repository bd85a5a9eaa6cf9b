// Imports the SDK's root, "openclaw/plugin-sdk", which openclaw 2026.9.6 does not export (only
// ./plugin-sdk/* subpaths). Verdict: REG-1 fails, saying which subpath and which openclaw.
import { jsonResult } from "openclaw/plugin-sdk";
import { Type } from "typebox";

export default function register(api) {
  api.registerTool({
    name: "echo_text",
    label: "Echo text",
    description: "Returns the supplied text.",
    parameters: Type.Object({ text: Type.String({ description: "Text to return." }) }),
    async execute(_toolCallId, params) {
      return jsonResult({ text: String(params?.text) });
    },
  });
}
