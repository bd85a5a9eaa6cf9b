// A correct tool that keeps its state where real ones do: a lookup quota in a store under the home
// folder (~/.myext/store.json), and the ids it has looked up in a history file in the folder it was
// loaded in. Both outlive the plugin's module, so unless each check starts from the same seeded home
// and folder, a later check meets the quota earlier checks spent ("quota used up" where a refusal
// naming the alternatives was expected: a false SCHEMA-3, NAME-6 advisories) and a finding could cite
// what another check's calls did. A check must see only what its own calls did.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

// As verdict_isolation: more calls than one check of the kit makes with one example, fewer than its
// checks make together.
const QUOTA = 4;
const records = new Map([["r1", "first record"], ["r2", "second record"]]);
const loadedIn = process.cwd();

function readJson(file, fallback) {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return fallback;
  }
}

function spendOne() {
  const store = path.join(os.homedir(), ".myext", "store.json");
  const state = readJson(store, { used: 0 });
  state.used += 1;
  fs.mkdirSync(path.dirname(store), { recursive: true });
  fs.writeFileSync(store, JSON.stringify(state));
  return state.used;
}

function remember(id) {
  const history = path.join(loadedIn, ".myext-history.json");
  const seen = readJson(history, []);
  if (seen.length >= QUOTA) return false;
  fs.writeFileSync(history, JSON.stringify([...seen, id]));
  return true;
}

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "LookupRecord",
    label: "Look up a record",
    description: "Finds a record by its id or by its name (give one of them). At most 4 lookups per session.",
    parameters: Type.Object({
      id: Type.Optional(Type.String({ description: "The record's id, such as r1." })),
      name: Type.Optional(Type.String({ description: "The record's name, such as first record." })),
    }),
    execute: async (_callId, params) => {
      if (spendOne() > QUOTA) return result(`The lookup quota of ${QUOTA} is spent; try again later.`);
      const refused = refusal(params, { id: { type: "string", optional: true }, name: { type: "string", optional: true } });
      if (refused) return result(refused);
      if (params.id === undefined && params.name === undefined) return result("Give id or name: which record to look up.");
      if (params.id !== undefined && params.name !== undefined) return result("Give id or name, not both.");
      if (!remember(params.id ?? params.name)) return result(`The lookup history is full (${QUOTA}); try again later.`);
      const found = params.id !== undefined
        ? records.get(params.id)
        : [...records.values()].find((name) => name === params.name);
      return result(found === undefined ? `No record ${JSON.stringify(params.id ?? params.name)}.` : `Found: ${found}.`,
        { id: params.id ?? null });
    },
  }));
}
