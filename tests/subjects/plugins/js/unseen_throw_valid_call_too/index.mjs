// Conforming twin of unseen_bad_arg_typeerror: a tool whose configuration is missing on this machine
// throws a TypeError on every call, the valid one too (`config.endpoint` of an absent config). The
// throw is the environment's, not ERR-2's, whatever arguments the call carried.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { result } from "../_lib/check.mjs";

const CONFIGS = {};

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "Publish",
    label: "Publish",
    description: "Publishes a title to the configured blog.",
    parameters: Type.Object({ title: Type.String({ description: "The title to publish." }) }),
    execute: async (_callId, params) => {
      const config = CONFIGS[process.env.TOOLCONFORMANCE_EXAMPLE_BLOG ?? "default"];
      const endpoint = config.endpoint;
      return result(`published ${params.title} to ${endpoint}`);
    },
  }));
}
