// Breaks SCHEMA-4 while its answers carry the words a refusal would: it never checks a type, and its
// normal empty answers name a parameter ("Nothing matched the `limit` you gave") or say "no active".
// A call that breaks the schema is answered exactly as `{}` is: the words are no refusal.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { result } from "../_lib/check.mjs";

const unknown = (params, names) => Object.keys(params).find((key) => !names.includes(key));

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "RecentErrors",
    label: "Recent errors",
    description: "Lists the most recent errors in the log.",
    parameters: Type.Object({
      limit: Type.Optional(Type.Number({ description: "How many errors to list, 10 if omitted." })),
    }),
    execute: async (_callId, params) => {
      const extra = unknown(params, ["limit"]);
      if (extra) return result(`unknown parameter ${extra}; expected limit`);
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
      const extra = unknown(params, ["job"]);
      if (extra) return result(`unknown parameter ${extra}; expected job`);
      return result("Status: no active job.");
    },
  }));
}
