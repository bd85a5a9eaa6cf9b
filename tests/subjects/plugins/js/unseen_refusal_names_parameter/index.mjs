// Conforming twin of unseen_refusal_words_same_answer: the same tools, whose normal answers carry the
// same words, but a call that breaks the schema gets a real refusal naming the parameter, an answer
// that differs from the one `{}` gets.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "RecentErrors",
    label: "Recent errors",
    description: "Lists the most recent errors in the log.",
    parameters: Type.Object({
      limit: Type.Optional(Type.Number({ description: "How many errors to list, 10 if omitted." })),
    }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { limit: { type: "number", optional: true } });
      if (refused) return result(refused);
      return result("Nothing matched the `limit` you gave: the log holds no errors.");
    },
  }));
  ctx.registerTool(defineTool({
    name: "JobStatus",
    label: "Job status",
    description: "Reports the state of a background job.",
    parameters: Type.Object({
      job: Type.Optional(Type.String({ description: "The job to report on; the current one if omitted." })),
    }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { job: { type: "string", optional: true } });
      if (refused) return result(refused);
      return result("Status: no active job.");
    },
  }));
}
