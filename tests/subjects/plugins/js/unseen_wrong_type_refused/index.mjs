// The conforming twin of unseen_wrong_type_ignored: the same notebook, which refuses every parameter
// of the wrong type with a text naming it (SCHEMA-4), as it refuses an unknown or a missing one.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

const NAMES = ["action", "note", "tag"];
const items = [];

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "Notebook",
    label: "Notebook",
    description: "Adds a note to the session's notebook or lists the notes, optionally by tag.",
    parameters: Type.Object({
      action: Type.Union([Type.Literal("add"), Type.Literal("list")], { description: "What to do." }),
      note: Type.Optional(Type.String({ description: "The note's text, for add." })),
      tag: Type.Optional(Type.String({ description: "A tag to file the note under, or to list by." })),
    }),
    execute: async (_callId, params) => {
      const extra = Object.keys(params).find((key) => !NAMES.includes(key));
      if (extra) return result(`unknown parameter ${extra}; expected ${NAMES.join(", ")}`);
      const wrong = refusal(params, {
        action: { type: "string" },
        note: { type: "string", optional: true },
        tag: { type: "string", optional: true },
      });
      if (wrong) return result(wrong);
      if (params.action !== "add" && params.action !== "list") return result("action must be add or list");
      const tag = typeof params.tag === "string" ? params.tag : undefined;
      if (params.action === "add") {
        items.push({ note: typeof params.note === "string" ? params.note : "", tag });
        return result(`Added item #${items.length}.`);
      }
      const shown = items.filter((item) => tag === undefined || item.tag === tag);
      return result(shown.length ? `${shown.length} item(s).` : "No items.");
    },
  }));
}
