// Breaks ERR-2 (and SCHEMA-4): it never checks a type, so a wrong-type argument crashes in its own code
// with a TypeError about a local variable (`text.toLowerCase is not a function`), while a valid call
// answers normally. The throw is the bad call's alone: the model could fix it, so it is ERR-2's.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "Slugify",
    label: "Slugify",
    description: "Turns a title into a URL slug.",
    parameters: Type.Object({ title: Type.String({ description: "The title to turn into a slug." }) }),
    execute: async (_callId, params) => {
      const extra = Object.keys(params).find((key) => key !== "title");
      if (extra) return result(`unknown parameter ${extra}; expected title`);
      if (params.title === undefined) return result("title is required");
      const text = params.title;
      const slug = text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
      return result(slug || "(empty slug)");
    },
  }));
}
