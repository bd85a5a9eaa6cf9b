// A pi extension in pi's own style that leans on pi's runtime: helpers imported from the package,
// a tool registered only once the session starts, and a tool that reads its execution context.
import {
  createReadTool,
  DEFAULT_MAX_BYTES,
  formatSize,
  getAgentDir,
  truncateHead,
  type ExtensionAPI,
} from "@earendil-works/pi-coding-agent";
import { StringEnum, Type as PiAiType } from "@mariozechner/pi-ai";
import { Text, visibleWidth } from "@earendil-works/pi-tui";
import { Type } from "@sinclair/typebox";

export default function (pi: ExtensionAPI) {
  let started = "";
  pi.registerFlag("verbose", { type: "boolean", default: false, description: "Say more" });
  pi.on("session_start", async (event, ctx) => {
    started = `${event.reason} in ${ctx.cwd}`;
    pi.registerTool({
      name: "context_probe",
      label: "Context probe",
      description: "Reports what the execution context holds.",
      parameters: Type.Object({ question: Type.String({ description: "What to ask the user" }) }),
      async execute(_id, params, signal, _onUpdate, ctx) {
        const confirmed = await ctx.ui.confirm("Proceed?", params.question);
        const picked = await ctx.ui.select("Pick", ["a", "b"]);
        ctx.shutdown();
        const report = {
          started,
          cwd: ctx.cwd,
          hasUI: ctx.hasUI,
          mode: ctx.mode,
          entries: ctx.sessionManager.getEntries().length,
          confirmed,
          picked: picked ?? null,
          aborted: signal?.aborted ?? null,
          agentDir: getAgentDir(),
          size: formatSize(2048),
          maxBytes: DEFAULT_MAX_BYTES,
          head: truncateHead("a\nb\nc", { maxLines: 2 }).content,
          readTool: createReadTool(ctx.cwd).name,
          flag: pi.getFlag("verbose"),
          enumOf: StringEnum(["a", "b"]).enum,
          width: visibleWidth("abc"),
          rendered: new Text("hi", 0, 0).render(10),
          sameType: PiAiType === Type,
        };
        return { content: [{ type: "text", text: JSON.stringify(report) }], details: {} };
      },
    });
  });
}
