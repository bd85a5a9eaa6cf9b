// Breaks COST-2 under a tool budget: a description that costs thousands of input tokens on every turn.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

const description = [
  "Explains a topic.",
  ...Array.from({ length: 60 }, (_, i) => `Guideline ${i + 1}: be thorough, cite sources, and mind the reader's time.`),
].join(" ");

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "Explain",
    label: "Explain",
    description,
    parameters: Type.Object({ topic: Type.String({ description: "The topic to explain." }) }),
    execute: async (_callId, params) => result(refusal(params, { topic: { type: "string" } }) ?? `about ${params.topic}`),
  }));
}
