// Correct tools that readings wider than the seed's words failed. SetScope's
// `scope` is one of three words, no path (NAME-2 is about paths); GoalNote's optional parameters are
// no choice between alternatives (SCHEMA-3), and its plain refusal "No active goal. Use create_goal
// first." is a refusal.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "SetScope",
    label: "Set scope",
    description: "Chooses where settings are saved.",
    parameters: Type.Object({
      scope: Type.Union([Type.Literal("user"), Type.Literal("project"), Type.Literal("local")], {
        description: "Scope of the settings: user, project or local.",
      }),
    }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { scope: { type: "string" } });
      if (refused) return result(refused);
      if (!["user", "project", "local"].includes(params.scope)) return result("scope must be user, project or local");
      return result(`settings are saved in the ${params.scope} scope`);
    },
  }));
  ctx.registerTool(defineTool({
    name: "GoalNote",
    label: "Goal note",
    description: "Adds a note to the active goal.",
    parameters: Type.Object({
      note: Type.Optional(Type.String({ description: "The note to add." })),
      priority: Type.Optional(Type.Number({ description: "Its priority." })),
    }),
    // Whatever it is given, there is no goal to add to yet: every call is this one refusal.
    execute: async () => result("No active goal. Use create_goal first."),
  }));
}
