// Verdict: loads. Its module takes a while to load (as importing a large dependency tree does on a
// busy machine); that is module loading, bounded apart from register().
import { Type } from "typebox";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

await new Promise((resolve) => setTimeout(resolve, 6000)); // longer than the default 5 s register bound

export default function (pi: ExtensionAPI) {
  pi.registerTool({
    name: "echo_text",
    label: "Echo text",
    description: "Returns the supplied text.",
    parameters: Type.Object({ value: Type.String({ description: "Text to return." }) }),
    async execute(_id, params: any) {
      if (typeof params?.value !== "string") return { content: [{ type: "text", text: "value must be a string" }], details: {} };
      return { content: [{ type: "text", text: params.value }], details: {} };
    },
  });
}
