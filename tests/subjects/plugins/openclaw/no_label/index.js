// Two tools, one without a label: OpenClaw registers both (it asks a tool for a name, execute and
// parameters only). Verdict: REG-2 fails for unlabelled alone; the plugin loads and echo_text conforms.
import { Type } from "typebox";

const result = (text, details) => ({ content: [{ type: "text", text }], details });
const echo = async (_toolCallId, params) =>
  typeof params?.text !== "string" ? result("text must be a string", { refused: "text" }) : result(params.text, {});

export default function register(api) {
  api.registerTool({
    name: "echo_text",
    label: "Echo text",
    description: "Returns the supplied text.",
    parameters: Type.Object({ text: Type.String({ description: "Text to return." }) }),
    execute: echo,
  });
  api.registerTool({
    name: "unlabelled",
    description: "Returns the supplied text too.",
    parameters: Type.Object({ text: Type.String({ description: "Text to return." }) }),
    execute: echo,
  });
}
