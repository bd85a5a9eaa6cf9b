// pi 1.6 (@earendil-works/pi-coding-agent) under the conformance kit: how this line of pi is
// imported and started. The adapter contract itself is mapped in pi-adapter.mjs, shared with
// hosts/pi-0.73 (the older @mariozechner line).

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { servePi } from "./pi-adapter.mjs";

const PI = "@earendil-works/pi-coding-agent";
let agent, ai, runtime = null;
let ready = null;

const line = {
  version: JSON.parse(readFileSync(new URL(`node_modules/${PI}/package.json`, import.meta.url), "utf8")).version,
  agent: null,
  faux: null,
  payloadModels: null,
  // pi keeps the extension that registered a tool name first: a later extension's tool of that name
  // is not in getAllTools() under its path (pi-adapter.mjs's install_plugin reports it refused).
  collisions: "first-wins",
  // pi's import takes seconds (more on a loaded machine) and evaluating it holds the event loop: it
  // starts once the hello is answered, and the requests after the hello wait for it.
  load: () => (ready ??= Promise.all([
    import(PI), import("@earendil-works/pi-ai"),
    import("@earendil-works/pi-ai/api/anthropic-messages"), import("@earendil-works/pi-ai/api/openai-responses"),
    import("@earendil-works/pi-ai/compat"),
  ]).then(([piAgent, piAi, anthropic, openai, compat]) => {
    agent = line.agent = piAgent;
    ai = piAi;
    line.faux = ai;
    line.payloadModels = {
      anthropic: [compat.getModel("anthropic", "claude-sonnet-4-5"), anthropic.stream],
      openai: [compat.getModel("openai", "gpt-5"), openai.stream],
    };
  })),

  // One faux model and one model runtime for the process: requests are strictly sequential, so
  // each turn sets its responses just before it prompts.
  async models() {
    if (!runtime) {
      const faux = ai.fauxProvider();
      const home = mkdtempSync(join(tmpdir(), "toolconformance-pi-models-"));
      const models = await agent.ModelRuntime.create({
        authPath: join(home, "auth.json"), modelsPath: join(home, "models.json"), refreshOnCreate: false,
      });
      models.registerNativeProvider(faux.provider);
      await models.setRuntimeApiKey(faux.provider.id, "no-network");
      runtime = { faux, options: { modelRuntime: models }, home };
    }
    return runtime;
  },

  factory: (name, factory) => ({ name, factory }),

  requestTools: (context) => ai.getCurrentTools(context.messages),

  catalog: (session) => session.getAllTools()
    .filter((t) => t.exposure !== "hidden")
    .map((t) => ({ name: t.name, deferred: t.exposure === "deferred" })),

  stop() {
    if (runtime) rmSync(runtime.home, { recursive: true, force: true });
  },
};

servePi(line);
