// Correct tools that need what the kit's machine does not have. Each refuses bad
// arguments with text and throws a host or configuration fault on a valid call, as the seed says to:
// a program missing from PATH (a real spawn, real ENOENT) and a missing API key. Neither is ERR-2's.
import { execFile } from "node:child_process";
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

const SPEC = { pattern: { type: "string" } };

function run(program, args) {
  return new Promise((resolve, reject) => {
    execFile(program, args, (error, stdout) => (error ? reject(error) : resolve(stdout)));
  });
}

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "FastGrep",
    label: "Fast grep",
    description: "Searches the files of the working directory with ripgrep.",
    parameters: Type.Object({ pattern: Type.String({ description: "The regular expression to look for." }) }),
    execute: async (_callId, params) => {
      const refused = refusal(params, SPEC);
      if (refused) return result(refused);
      const found = await run("toolconformance-missing-rg", ["--json", params.pattern, "."]);
      return result(found || "no matches");
    },
  }));
  ctx.registerTool(defineTool({
    name: "WebSearch",
    label: "Web search",
    description: "Searches the web.",
    parameters: Type.Object({ query: Type.String({ description: "What to search for." }) }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { query: { type: "string" } });
      if (refused) return result(refused);
      const key = process.env.TOOLCONFORMANCE_EXAMPLE_SEARCH_API_KEY;
      if (!key) throw new Error("TOOLCONFORMANCE_EXAMPLE_SEARCH_API_KEY is not set: configure an API key");
      return result(`searched for ${params.query}`);
    },
  }));
}
