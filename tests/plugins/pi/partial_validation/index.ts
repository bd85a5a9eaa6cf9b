// Verdict: SCHEMA-4 fails, and the same on every run with one seed: it checks `times` only when it
// is a string, so other wrong types are echoed back (the seed: "Validate data from external systems
// again inside the handler"), line 15.
import { Type } from "typebox";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.registerTool({
    name: "repeat_word",
    label: "Repeat word",
    description: "Repeats a word a number of times.",
    parameters: Type.Object({ word: Type.String({ description: "The word" }), times: Type.Number({ description: "How often" }) }),
    async execute(_id, params: any) {
      if (typeof params?.word !== "string") return { content: [{ type: "text", text: "word must be a string" }], details: {} };
      if (typeof params.times === "string") return { content: [{ type: "text", text: "times must be a number" }], details: {} };
      const unknown = Object.keys(params).filter((k) => k !== "word" && k !== "times");
      if (unknown.length) return { content: [{ type: "text", text: `unknown parameter ${unknown[0]}` }], details: {} };
      return { content: [{ type: "text", text: `${params.word} x ${params.times}` }], details: {} };
    },
  });
}
