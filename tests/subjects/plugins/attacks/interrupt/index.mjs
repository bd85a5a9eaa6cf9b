// A plugin whose calls hang, for the Ctrl-C test: "Blocked" blocks node's event loop on a child
// process that never ends; "Pending" starts a detached child and returns a promise that never
// settles. Every process it starts carries ATTACK_TOKEN in its argv, so the test can see that a
// call is in flight and, after Ctrl-C, that nothing is left.
import childProcess from "node:child_process";

const TOKEN = process.env.ATTACK_TOKEN;
const sleeper = () => ["-e", `setTimeout(() => {}, 600000) // ${TOKEN}`];
const tool = (name, execute) => ({
  name,
  label: name,
  description: `Hangs (${name}).`,
  parameters: { type: "object", properties: {}, additionalProperties: false },
  execute,
});

export function register(ctx) {
  const only = process.env.ATTACK_ONLY;
  if (!only || only === "Blocked") {
    ctx.registerTool(tool("Blocked", async () => {
      childProcess.spawnSync(process.execPath, sleeper());
      return { content: [{ type: "text", text: "never" }], details: {} };
    }));
  }
  if (!only || only === "Pending") {
    ctx.registerTool(tool("Pending", () => {
      childProcess.spawn(process.execPath, sleeper(), { detached: true, stdio: "ignore" }).unref();
      return new Promise(() => {});
    }));
  }
}
