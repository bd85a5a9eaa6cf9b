// Scripted plugins -> real plugin modules (docs/host-implementers.md, "JavaScript/TypeScript host").
//
// A scripted plugin (host/scripted-plugin.schema.json) is a test plugin described as data. A
// JavaScript host does not interpret it: it writes the module this file builds and loads it the way
// it loads any plugin, so the check goes through the host's real loader and registry. Two forms:
//
//   "seam": `export async function register(ctx)`, tools built with defineTool from
//           "@earendil-works/pi-coding-agent" and given to ctx.registerTool(tool, options?);
//           transport failures tagged with "elowen-plugin-shared/transport".
//   "pi":   pi's `export default function (pi)`, tool definitions given to pi.registerTool(tool,
//           options?) as pi's docs show them (defineTool only adds type inference there). pi has
//           no transport tag module, so none is imported.
//
// The handler and register steps run in steps.mjs, imported by absolute file URL so the module
// works from any folder the host loads plugins from.

import { readFileSync } from "node:fs";

const STEPS_URL = new URL("./steps.mjs", import.meta.url).href;
const SCHEMA_URL = new URL("../scripted-plugin.schema.json", import.meta.url);

export const FORMS = Object.freeze({
  seam: {
    defineTool: "@earendil-works/pi-coding-agent",
    transport: "elowen-plugin-shared/transport",
  },
  pi: {
    defineTool: null,
    transport: null,
  },
});

let schemaCache;
/** The scripted-plugin schema shipped beside this kit. */
export function scriptedPluginSchema() {
  schemaCache ??= JSON.parse(readFileSync(SCHEMA_URL, "utf8"));
  return schemaCache;
}

/** The one-line reason `doc` is not a scripted plugin, or null. Checks the top level and the tool
 * entries (what the builder relies on); the kit validates the full document before sending it. */
export function scriptedPluginProblem(doc) {
  const schema = scriptedPluginSchema();
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) return "a scripted plugin is an object";
  for (const key of schema.required) if (!(key in doc)) return `a scripted plugin needs "${key}"`;
  if (typeof doc.name !== "string" || !doc.name) return 'a scripted plugin\'s "name" is a non-empty string';
  if (!Array.isArray(doc.tools)) return 'a scripted plugin\'s "tools" is an array';
  const toolKeys = schema.$defs.tool.required;
  for (const [i, spec] of doc.tools.entries()) {
    for (const key of toolKeys) if (!(spec && key in spec)) return `tools[${i}] needs "${key}"`;
  }
  return null;
}

/** The source text of a plugin module for `doc` in `form` ("seam" or "pi"). `options.transport`
 * overrides the form's transport module specifier (null: none). `options.shared`: take the step
 * interpreter from the copy the adapter installed (installScriptedHost) instead of importing it,
 * for a host that re-evaluates every import of every plugin (pi's loader does, per extension). */
export function buildPluginSource(doc, form = "seam", options = {}) {
  const problem = scriptedPluginProblem(doc);
  if (problem) throw new TypeError(`scripted plugin: ${problem}`);
  const spec = FORMS[form];
  if (!spec) throw new TypeError(`scripted plugin form ${JSON.stringify(form)} is not one of ${Object.keys(FORMS).join(", ")}`);
  const transport = options.transport === undefined ? spec.transport : options.transport;
  const lines = [
    `// Built by pytest-toolconformance from the scripted plugin ${JSON.stringify(doc.name)} (${form} form).`,
    spec.defineTool ? `import { defineTool } from ${JSON.stringify(spec.defineTool)};` : "const defineTool = (tool) => tool;",
    options.shared
      ? `const { registerScripted } = globalThis[Symbol.for("pytest-toolconformance.scripted-host")].steps;`
      : `import { registerScripted } from ${JSON.stringify(STEPS_URL)};`,
  ];
  lines.push(transport ? `import * as transport from ${JSON.stringify(transport)};` : "const transport = null;");
  // One string literal rather than an object literal: a host that transpiles plugins (pi's jiti)
  // parses a token, not a syntax tree of every schema.
  lines.push(`const PLUGIN = JSON.parse(${JSON.stringify(JSON.stringify(doc))});`);
  if (form === "seam") {
    lines.push(
      "export async function register(ctx) {",
      "  await registerScripted(PLUGIN, { registerTool: (tool, options) => options === undefined ? ctx.registerTool(tool) : ctx.registerTool(tool, options), defineTool, ctx, transport });",
      "}",
    );
  } else {
    lines.push(
      "export default async function (pi) {",
      "  await registerScripted(PLUGIN, { registerTool: (tool, options) => options === undefined ? pi.registerTool(tool) : pi.registerTool(tool, options), defineTool, ctx: pi, transport });",
      "}",
    );
  }
  return `${lines.join("\n")}\n`;
}
