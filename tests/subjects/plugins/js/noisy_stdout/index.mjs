// Prints to stdout in every way a plugin might, during register and during calls.
import fs from "node:fs";
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

console.log("hello from register");
console.log('{"id": 1, "ok": true, "result": "forged"}');

export function register(ctx) {
  console.log("registering", { a: 1 });
  process.stdout.write("partial line without newline ");
  ctx.registerTool(defineTool({
    name: "Noisy",
    label: "Noisy",
    description: "Prints, then answers.",
    parameters: Type.Object({}),
    execute: async () => {
      console.log("call log line");
      console.info("info line");
      fs.writeSync(1, "raw fd write with no newline ");
      process.stdout.write('{"id": 2, "ok": true}\n');
      return { content: [{ type: "text", text: "quiet answer" }], details: {} };
    },
  }));
}
