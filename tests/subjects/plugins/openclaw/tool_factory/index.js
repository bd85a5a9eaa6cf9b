// A tool factory given the turn's trusted context, registered optional, as OpenClaw's
// docs/plugins/building-plugins.md ("Registering tools") writes it. Verdict: conforms.
import { Type } from "typebox";
import { definePluginEntry } from "openclaw/plugin-sdk/plugin-entry";

export default definePluginEntry({
  id: "tool-factory",
  name: "Tool factory",
  description: "Runs workflows",
  register(api) {
    api.registerTool(
      (toolContext) => ({
        name: "workflow_tool",
        label: "Workflow",
        description: "Run a workflow",
        parameters: Type.Object({ pipeline: Type.String({ description: "The pipeline to run." }) }),
        async execute(_id, params) {
          if (typeof params?.pipeline !== "string") {
            return { content: [{ type: "text", text: "pipeline must be a string" }], details: { refused: "pipeline" } };
          }
          await toolContext.delivery?.send({ text: `Workflow started: ${params.pipeline}` });
          return {
            content: [{ type: "text", text: params.pipeline }],
            details: { pipeline: params.pipeline, channel: toolContext.messageChannel ?? null },
          };
        },
      }),
      { name: "workflow_tool", optional: true },
    );
  },
});
