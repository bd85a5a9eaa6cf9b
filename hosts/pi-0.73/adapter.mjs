// pi 0.73 (@mariozechner/pi-coding-agent, pi's older line) under the conformance kit: how this line
// of pi is imported and started. The adapter contract itself is mapped in ../pi/pi-adapter.mjs,
// shared with pi 1.6; what differs here is this line's API: an AuthStorage and ModelRegistry (1.6
// has ModelRuntime), registerFauxProvider (1.6: fauxProvider), extension factories as plain
// functions, the request's tools in context.tools, no tool exposure (nothing deferred) and pi-ai's
// serialisers under ./anthropic and ./openai-responses.

import { readFileSync } from "node:fs";
import { servePi } from "../pi/pi-adapter.mjs";

const PI = "@mariozechner/pi-coding-agent";
let agent, ai, models = null;
let ready = null;

const line = {
  version: JSON.parse(readFileSync(new URL(`node_modules/${PI}/package.json`, import.meta.url), "utf8")).version,
  agent: null,
  faux: null,
  payloadModels: null,
  // The loader keeps the first extension's tool and reports the later one as a conflict
  // (node_modules/@mariozechner/pi-coding-agent/dist/core/extensions/loader.js).
  collisions: "first-wins",
  load: () => (ready ??= Promise.all([
    import(PI), import("@mariozechner/pi-ai"), import("@mariozechner/pi-ai/anthropic"),
    import("@mariozechner/pi-ai/openai-responses"),
  ]).then(([piAgent, piAi, anthropic, openai]) => {
    agent = line.agent = piAgent;
    ai = piAi;
    line.faux = ai;
    line.payloadModels = {
      anthropic: [ai.getModel("anthropic", "claude-sonnet-4-5"), anthropic.streamAnthropic],
      openai: [ai.getModel("openai", "gpt-5"), openai.streamOpenAIResponses],
    };
  })),

  // One faux provider and one model registry for the process: requests are strictly sequential,
  // so each turn sets its responses just before it prompts.
  async models() {
    if (!models) {
      const faux = ai.registerFauxProvider();
      const authStorage = agent.AuthStorage.inMemory();
      authStorage.setRuntimeApiKey(faux.getModel().provider, "no-network");
      models = { faux, options: { authStorage, modelRegistry: agent.ModelRegistry.inMemory(authStorage) } };
    }
    return models;
  },

  factory: (_name, factory) => factory,

  requestTools: (context) => context.tools ?? [],

  catalog: (session) => session.getAllTools().map((t) => ({ name: t.name, deferred: false })),

  stop() {},
};

servePi(line);
