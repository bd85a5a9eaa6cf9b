// What the kit judged wrong or missed on extensions other people published (pi-subagents,
// pi-markdown-preview, pi-web-access), one tool each, in the same shapes. Two tools break a rule; three
// are correct and must be left alone.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

const RUNS = new Map();

export function register(ctx) {
  // Every parameter optional, and the call naming none is complete ("wait for all"); with no run in the
  // session it answers with the state, which is no choice between alternatives (SCHEMA-3). Like
  // pi-subagents' bg_wait it checks its own parameters' types and lets unknown ones through, so an
  // unknown-only call silently waits for all runs, the default target, and gets the answer `{}` gets:
  // that breaks NAME-6 ("Reject unknown parameters instead of silently using a default target"); the
  // state words in the answer make it no refusal.
  ctx.registerTool(defineTool({
    name: "WaitForRuns",
    label: "Wait for runs",
    description: "Waits for background runs to finish.",
    parameters: Type.Object({
      id: Type.Optional(Type.String({ description: "Run id to wait for; all runs when omitted." })),
      all: Type.Optional(Type.Boolean({ description: "Wait for every run." })),
      timeoutMs: Type.Optional(Type.Integer({ minimum: 1, description: "How long to wait." })),
    }),
    execute: async (_callId, params) => {
      const spec = { id: { type: "string", optional: true }, all: { type: "boolean", optional: true },
        timeoutMs: { type: "integer", optional: true } };
      const declared = Object.fromEntries(Object.keys(spec).filter((k) => k in params).map((k) => [k, params[k]]));
      const refused = refusal(declared, spec);
      if (refused) return result(refused);
      if (params.id !== undefined && !RUNS.has(params.id)) return result(`Run ${params.id} not found.`);
      return result("No active runs in this session. Nothing to wait for.");
    },
  }));

  // Correct: the file it reads is file_path, the file it writes output_path; the base folder of the
  // document's images is a directory beside the file target, not the tool's search scope (NAME-2).
  ctx.registerTool(defineTool({
    name: "ExportPreview",
    label: "Export preview",
    description: "Renders a Markdown file to HTML.",
    parameters: Type.Object({
      file_path: Type.String({ description: "The Markdown file to render." }),
      resourceDir: Type.Optional(Type.String({ description: "Base directory for resolving relative images." })),
      output_path: Type.Optional(Type.String({ description: "Where to write the HTML." })),
    }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { file_path: { type: "string" }, resourceDir: { type: "string", optional: true },
        output_path: { type: "string", optional: true } });
      if (refused) return result(refused);
      return result(`No such file: ${params.file_path}`);
    },
  }));

  // Correct: a delegation tool that may also write its answer to a file; that optional output is no
  // primary single-file target (NAME-1).
  ctx.registerTool(defineTool({
    name: "Delegate",
    label: "Delegate",
    description: "Hands a task to a helper and returns its answer.",
    parameters: Type.Object({
      task: Type.String({ description: "What the helper should do." }),
      output: Type.Optional(Type.String({ description: "Output filename/path to also write the answer to." })),
    }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { task: { type: "string" }, output: { type: "string", optional: true } });
      if (refused) return result(refused);
      return result(`The helper says: done with ${JSON.stringify(params.task)}.`);
    },
  }));

  // Broken (ERR-3): both URL parameters are optional, so a generated call may name neither; a failed
  // request is answered as text (pi-web-access's fetch_content).
  ctx.registerTool(defineTool({
    name: "FetchPages",
    label: "Fetch pages",
    description: "Fetches one or more web pages.",
    parameters: Type.Object({
      url: Type.Optional(Type.String({ description: "A URL to fetch." })),
      urls: Type.Optional(Type.Array(Type.String(), { description: "Several URLs to fetch." })),
      raw: Type.Optional(Type.Boolean({ description: "Return the body as it came." })),
    }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { url: { type: "string", optional: true }, urls: { type: "array", optional: true },
        raw: { type: "boolean", optional: true } });
      if (refused) return result(refused);
      const list = params.urls ?? (params.url === undefined ? [] : [params.url]);
      if (list.length === 0) return result("Error: give url or urls.");
      const texts = [];
      for (const each of list) {
        try {
          texts.push(await (await fetch(each)).text());
        } catch (error) {
          texts.push(`Error: could not fetch ${each}: ${error.cause?.code ?? error.message}`);
        }
      }
      return result(texts.join("\n"));
    },
  }));

  // Broken (ERR-2): it refuses a bad id with text, but an optional mode that is not a string throws a
  // TypeError from `mode.trim()` (pi-web-access's get_search_content), a bad argument thrown.
  ctx.registerTool(defineTool({
    name: "FindInResults",
    label: "Find in results",
    description: "Finds text in stored results.",
    parameters: Type.Object({
      id: Type.String({ description: "The stored result's id." }),
      alpha: Type.Optional(Type.Boolean({ description: "Sort matches alphabetically." })),
      beta: Type.Optional(Type.Integer({ description: "How many matches to return." })),
      mode: Type.Optional(Type.String({ description: "exact or fuzzy." })),
    }),
    execute: async (_callId, params) => {
      if (params.mode?.trim() === "") delete params.mode;
      const refused = refusal(params, { id: { type: "string" }, alpha: { type: "boolean", optional: true },
        beta: { type: "integer", optional: true }, mode: { type: "string", optional: true } });
      if (refused) return result(refused);
      return result(`No stored results for ${JSON.stringify(params.id)}.`);
    },
  }));
}
