// Breaks SCHEMA-4 where only a wrong-typed optional parameter is at fault: it checks the action it
// needs and leaves every other parameter unchecked, so a `tag` or `note` of the wrong type is dropped
// and the call is answered exactly as the same call without it ("No items.", "2 item(s)."). Its
// numbered "Added item #N." never equals another call's answer: only the list answers show it.
// Its refusals for a missing or unknown action and for unknown parameters are right.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { result } from "../_lib/check.mjs";

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
