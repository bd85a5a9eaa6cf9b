// A conforming plugin with the shapes the plugin rules are about: a file target (NAME-1), a search
// scope (NAME-2), a choice between alternatives in the handler (SCHEMA-3), a network call whose
// failure is thrown and tagged (ERR-3, ERR-4), identity/access read at execution (SCOPE-4), and an
// external tool that validates its own arguments.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { isTransportFailure, markTransportFailure } from "elowen-plugin-shared/transport";
import { Type } from "typebox";
import { readdir, readFile } from "node:fs/promises";
import { refusal, result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "ReadNote",
    label: "Read note",
    description: "Reads one note file.",
    parameters: Type.Object({
      file_path: Type.String({ description: "The note file to read." }),
    }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { file_path: { type: "string" } });
      if (refused) return result(refused);
      try {
        return result(await readFile(params.file_path, "utf8"));
      } catch (error) {
        return result(`file_path ${params.file_path} cannot be read (${error.code ?? error.message})`);
      }
    },
  }));

  ctx.registerTool(defineTool({
    name: "FindNotes",
    label: "Find notes",
    description: "Lists the files of a directory whose names contain a pattern.",
    parameters: Type.Object({
      pattern: Type.String({ description: "Text the file name must contain." }),
      path: Type.Optional(Type.String({ description: "Directory to search; the working directory if omitted." })),
    }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { pattern: { type: "string" }, path: { type: "string", optional: true } });
      if (refused) return result(refused);
      try {
        const names = (await readdir(params.path ?? ".")).filter((name) => name.includes(params.pattern));
        return result(names.length ? names.join("\n") : "no match", { count: names.length });
      } catch (error) {
        return result(`path ${params.path} cannot be listed (${error.code ?? error.message})`);
      }
    },
  }));

  ctx.registerTool(defineTool({
    name: "ShareDiagram",
    label: "Share diagram",
    description: "Shares a diagram file, or the latest generated diagram.",
    parameters: Type.Object({
      file_path: Type.Optional(Type.String({ description: "The diagram file to share." })),
      latest: Type.Optional(Type.Boolean({ description: "Share the latest generated diagram instead." })),
    }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { file_path: { type: "string", optional: true }, latest: { type: "boolean", optional: true } });
      if (refused) return result(`${refused}. Pass file_path or latest: true`);
      if (params.file_path === undefined && params.latest !== true) {
        return result("choose what to share: pass file_path, or latest: true");
      }
      if (params.file_path !== undefined && params.latest === true) {
        return result("pass either file_path or latest: true, not both");
      }
      return result(params.latest ? "shared the latest diagram" : `shared ${params.file_path}`);
    },
  }));

  ctx.registerTool(defineTool({
    name: "FetchQuote",
    label: "Fetch quote",
    description: "Fetches the current price of a stock symbol.",
    parameters: Type.Object({
      symbol: Type.String({ description: "Ticker symbol, like ACME." }),
    }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { symbol: { type: "string" } });
      if (refused) return result(refused);
      try {
        const response = await fetch(`https://quotes.example.com/v1/${encodeURIComponent(params.symbol)}`);
        if (response.status >= 500) {
          throw markTransportFailure(new Error(`quote service answered ${response.status}`));
        }
        return result(await response.text());
      } catch (error) {
        // The catch-all: a transport fault is rethrown, never flattened into an answer.
        if (isTransportFailure(error)) throw error;
        throw markTransportFailure(error);
      }
    },
  }));

  // An externally authored schema (as the MCP bridge registers them): the host forwards its
  // arguments unvalidated (CAP-4), so this handler is the only validator.
  ctx.registerTool(defineTool({
    name: "mcp__notes__lookup",
    label: "Look up note",
    description: "Looks a note up by its title.",
    parameters: Type.Object({ title: Type.String({ description: "The note's title." }) }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { title: { type: "string" } });
      if (refused) return result(refused);
      return result(`no note titled ${JSON.stringify(params.title)}`);
    },
  }), { external: true });

  ctx.registerTool(defineTool({
    name: "WhoAmI",
    label: "Who am I",
    description: "Says who the current turn runs as and which Projects it may use.",
    parameters: Type.Object({}),
    execute: async (_callId, params) => {
      const refused = refusal(params, {});
      if (refused) return result(refused);
      // Read at execution time, every call (SCOPE-4).
      const identity = ctx.currentIdentity();
      const access = ctx.currentAccess();
      return result(`${identity.userId} (projects: ${access.projectIds.join(", ") || "none"})`);
    },
  }));
}
