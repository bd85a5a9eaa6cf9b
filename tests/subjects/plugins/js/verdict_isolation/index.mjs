// A correct tool that keeps state between calls, as real ones do (a session store,
// a counter, an API quota). Its quota lives in the module, so the kit's earlier checks used it up and a
// later check met "quota used up" where it expected a refusal naming the alternatives (a false
// SCHEMA-3), unless each check calls an instance of the plugin that no earlier check has called.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

// More calls than any one check of the kit makes with one example (tests/kit/suites/test_plugin_suites.py
// runs it so), fewer than its checks make together: the quota of a real tool is larger, and so are checks
// with the default number of examples.
const QUOTA = 4;
let used = 0;
const records = new Map([["r1", "first record"], ["r2", "second record"]]);

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "LookupRecord",
    label: "Look up a record",
    description: "Finds a record by its id or by its name (give one of them). At most 4 lookups per session.",
    parameters: Type.Object({
      id: Type.Optional(Type.String({ description: "The record's id, such as r1." })),
      name: Type.Optional(Type.String({ description: "The record's name, such as first record." })),
    }),
    execute: async (_callId, params) => {
      used += 1;
      if (used > QUOTA) return result(`The lookup quota of ${QUOTA} for this session is spent; try again later.`);
      const refused = refusal(params, { id: { type: "string", optional: true }, name: { type: "string", optional: true } });
      if (refused) return result(refused);
      if (params.id === undefined && params.name === undefined) return result("Give id or name: which record to look up.");
      if (params.id !== undefined && params.name !== undefined) return result("Give id or name, not both.");
      const found = params.id !== undefined
        ? records.get(params.id)
        : [...records.values()].find((name) => name === params.name);
      return result(found === undefined ? `No record ${JSON.stringify(params.id ?? params.name)}.` : `Found: ${found}.`,
        { id: params.id ?? null });
    },
  }));
}
