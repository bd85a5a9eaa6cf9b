// Reads a JSON array of {id, source} on stdin, where source is a JS expression over `Type`
// (e.g. `Type.Object({"a": Type.String()})`), and prints one JSON object on stdout:
// {"typebox": version, "results": {id: {"ok": true, "json": JSON.stringify(schema)} | {"ok": false, "error": msg}}}.
// `typebox` resolves from tests/node_modules (install with `npm ci --prefix tests`).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Type } from "typebox";

function typeboxVersion() {
  try {
    const require = createRequire(import.meta.url);
    const entry = require.resolve("typebox");
    let dir = dirname(entry);
    while (dir !== dirname(dir)) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
        if (pkg.name === "typebox") return pkg.version;
      } catch {}
      dir = dirname(dir);
    }
  } catch {}
  return "unknown";
}

const cases = JSON.parse(readFileSync(0, "utf8"));
const results = {};
for (const { id, source } of cases) {
  try {
    const schema = new Function("Type", `"use strict"; return (${source});`)(Type);
    results[id] = { ok: true, json: JSON.stringify(schema) };
  } catch (error) {
    results[id] = { ok: false, error: String(error) };
  }
}
process.stdout.write(JSON.stringify({ typebox: typeboxVersion(), results }));
