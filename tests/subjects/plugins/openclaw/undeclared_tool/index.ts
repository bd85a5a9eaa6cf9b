// The plugin_entry plugin with word_count left out of its manifest's contracts.tools: OpenClaw
// refuses word_count at registration. Verdict: MANIFEST-3 fails for word_count, with OpenClaw's words.
import { Type } from "typebox";
import { definePluginEntry } from "openclaw/plugin-sdk/plugin-entry";

const result = (text: string, details: Record<string, unknown>) => ({
  content: [{ type: "text" as const, text }],
  details,
});

export default definePluginEntry({
  id: "undeclared-tool",
  name: "Undeclared tool",
  description: "Adds two text tools to OpenClaw",
  register(api) {
    api.registerTool({
      name: "echo_text",
      label: "Echo text",
      description: "Echo one input value",
      parameters: Type.Object({ text: Type.String({ description: "Text to return." }) }),
      async execute(_id: string, params: any) {
        if (typeof params?.text !== "string") return result("text must be a string", { refused: "text" });
        return result(`Got: ${params.text}`, { text: params.text });
      },
    });
    api.registerTool({
      name: "word_count",
      label: "Word count",
      description: "Counts the words of a text",
      parameters: Type.Object({ text: Type.String({ description: "Text to count the words of." }) }),
      async execute(_id: string, params: any) {
        if (typeof params?.text !== "string") return result("text must be a string", { refused: "text" });
        const words = params.text.split(/\s+/).filter(Boolean).length;
        return result(`${words} word(s)`, { words });
      },
    });
  },
});
