// Breaks SCHEMA-4 without a word of evidence the old reading knew: it refuses unknown parameters, but
// never checks a type, and answers a call that breaks the schema exactly as it answers a valid one
// (Status) or with an empty result (Lookup); both were only advised before.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { result } from "../_lib/check.mjs";

const unknown = (params, names) => Object.keys(params).find((key) => !names.includes(key));

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "Status",
    label: "Status",
    description: "Reports the status of a service.",
    parameters: Type.Object({ service: Type.String({ description: "The service to report on." }) }),
    execute: async (_callId, params) => {
      const extra = unknown(params, ["service"]);
      if (extra) return result(`unknown parameter ${extra}; expected service`);
      return result("all services are up");
    },
  }));
  ctx.registerTool(defineTool({
    name: "Lookup",
    label: "Lookup",
    description: "Looks up a key in the settings.",
    parameters: Type.Object({ key: Type.String({ description: "The setting to look up." }) }),
    execute: async (_callId, params) => {
      const extra = unknown(params, ["key"]);
      if (extra) return result(`unknown parameter ${extra}; expected key`);
      const settings = { theme: "dark" };
      return Object.hasOwn(settings, params.key)
        ? result(settings[params.key])
        : { content: [], details: {} };
    },
  }));
}
