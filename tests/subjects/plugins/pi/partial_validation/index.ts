// Verdict: SCHEMA-4 fails, and the same on every run with one seed: it checks `times` but not
// `word`, so a missing or wrong-typed word is used as it is (the seed: "Validate data from external
// systems again inside the handler"), line 17.
import { Type } from "typebox";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.registerTool({
    name: "repeat_word",
    label: "Repeat word",
    description: "Repeats a word a number of times.",
    parameters: Type.Object({ word: Type.String({ description: "The word" }), times: Type.Number({ description: "How often" }) }),
    async execute(_id, params: any) {
      if (typeof params?.times !== "number") return { content: [{ type: "text", text: "times must be a number" }], details: {} };
      const unknown = Object.keys(params).filter((k) => k !== "word" && k !== "times");
      if (unknown.length) return { content: [{ type: "text", text: `unknown parameter ${unknown[0]}` }], details: {} };
      return { content: [{ type: "text", text: `${params.word} x ${params.times}` }], details: {} };
    },
  });
}
