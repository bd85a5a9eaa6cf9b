// Breaks NAME-4: the execution working directory is called working_dir instead of cwd.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "RunScript",
    label: "Run script",
    description: "Runs a script file (this example only reports what it would run).",
    parameters: Type.Object({
      file_path: Type.String({ description: "The script file to execute." }),
      working_dir: Type.Optional(Type.String({ description: "Working directory to run it in." })),
    }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { file_path: { type: "string" }, working_dir: { type: "string", optional: true } });
      if (refused) return result(refused);
      return result(`would run ${params.file_path} in ${params.working_dir ?? "the working directory"}`);
    },
  }));
}
