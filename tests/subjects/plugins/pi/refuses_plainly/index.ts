// Verdict: conforms. Its refusals say what is wrong without naming the parameter ("no parameters
// other than these are accepted", "Error: UI not available"): refusals all the same; naming the
// parameter is only advised.
import { Type } from "typebox";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }], details: {} });

export default function (pi: ExtensionAPI) {
  pi.registerTool({
    name: "ask_user",
    label: "Ask user",
    description: "Asks the user a yes/no question.",
    parameters: Type.Object({ prompt: Type.String({ description: "The question" }) }),
    async execute(_id, params: any, _signal, _onUpdate, ctx) {
      if (Object.keys(params ?? {}).some((k) => k !== "prompt")) return text("no parameters other than these are accepted");
      if (typeof params?.prompt !== "string" || !params.prompt) return text("Error: a question is required");
      if (!ctx.hasUI) return text("Error: UI not available (running in non-interactive mode)");
      return text((await ctx.ui.confirm("Question", params.prompt)) ? "yes" : "no");
    },
  });
}
