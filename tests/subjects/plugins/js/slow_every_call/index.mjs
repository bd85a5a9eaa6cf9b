// A web tool that retries with backoff: every call takes 20 s, longer than a plugin step may take,
// beside a tool that answers at once. The run must still end, in minutes: the slow tool's checks that
// call it are errored (no rule is judged on a call that does not end in time), its other checks and
// the other tool's are judged.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

const CALL_MS = 20_000;

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "SearchWeb",
    label: "Search the web",
    description: "Searches the web for the query and answers the first titles found.",
    parameters: Type.Object({ query: Type.String({ description: "What to search for." }) }),
    execute: async (_callId, params) => {
      // The backoff runs before anything is read: every call, valid or not, takes CALL_MS.
      await new Promise((resolve) => setTimeout(resolve, CALL_MS));
      const refused = refusal(params, { query: { type: "string" } });
      if (refused) return result(refused);
      return result(`No results for ${JSON.stringify(params.query)}.`);
    },
  }));
  ctx.registerTool(defineTool({
    name: "Echo",
    label: "Echo",
    description: "Returns the supplied text.",
    parameters: Type.Object({ value: Type.String({ description: "Text to return." }) }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { value: { type: "string" } });
      return result(refused ?? params.value);
    },
  }));
}
