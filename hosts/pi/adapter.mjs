// pi under the conformance kit: the adapter contract mapped onto pi's real runtime
// (@earendil-works/pi-coding-agent 1.6.0). The wire protocol and the scripted-plugin builder come
// from the kit's JavaScript host kit; this file maps only pi's own operations:
//
//   install_plugin  the plugin becomes a real pi extension file (`export default function (pi)`),
//                   loaded by pi's own DefaultResourceLoader in install order; what pi's registry
//                   then holds (getAllTools and its sourceInfo) is the report.
//   open_session    createAgentSession over that loader, a faux model (no network), an in-memory
//                   session; the spec's hooks become a pi extension with a real `tool_call` handler.
//   compose         the request the model really gets (a faux response factory sees it) and the
//                   provider payloads pi-ai's Anthropic and OpenAI serialisers build from it.
//   call            a faux tool call run by session.prompt(): pi's whole pipeline (argument
//                   preparation, validation, tool_call hooks, execute, tool_result hooks).
//
// pi has no accounts, policies, scopes, plan mode, sandbox or transport tag: the capabilities below
// are the ones pi honestly has, and hosts/pi/deviations.toml says where it differs from the seam.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

// pi's import takes seconds (more on a loaded machine) and evaluating it holds the event loop: it
// starts once the hello is answered, and the requests after the hello wait for it.
let createAgentSession, DefaultResourceLoader, ModelRuntime, SessionManager, SettingsManager;
let fauxAssistantMessage, fauxProvider, fauxText, fauxToolCall, getCurrentTools, PAYLOAD_MODELS;
let piReady = null;
const loadPi = () => (piReady ??= Promise.all([
  import("@earendil-works/pi-coding-agent"), import("@earendil-works/pi-ai"),
  import("@earendil-works/pi-ai/api/anthropic-messages"), import("@earendil-works/pi-ai/api/openai-responses"),
  import("@earendil-works/pi-ai/compat"),
]).then(([agent, ai, anthropic, openai, compat]) => {
  ({ createAgentSession, DefaultResourceLoader, ModelRuntime, SessionManager, SettingsManager } = agent);
  ({ fauxAssistantMessage, fauxProvider, fauxText, fauxToolCall, getCurrentTools } = ai);
  PAYLOAD_MODELS = {
    anthropic: [compat.getModel("anthropic", "claude-sonnet-4-5"), anthropic.stream],
    openai: [compat.getModel("openai", "gpt-5"), openai.stream],
  };
}));
const VERSION = JSON.parse(readFileSync(new URL("node_modules/@earendil-works/pi-coding-agent/package.json", import.meta.url), "utf8")).version;

const KIT = process.env.TOOLCONFORMANCE_JS_KIT ?? new URL("../../pytest_toolconformance/host/js/", import.meta.url).pathname;
const kit = (file) => import(pathToFileURL(join(KIT, file)).href);
const { serve, error } = await kit("wire.mjs");
const { buildPluginSource } = await kit("scripted.mjs");
const { installScriptedHost, takeCallRecord } = await kit("steps.mjs");


let state = null;
let bound = 2; // seconds plugin code may run in one call (from the kit's timeout)
let callCount = 0;

function fresh() {
  const root = mkdtempSync(join(tmpdir(), "toolconformance-pi-"));
  for (const dir of ["agent", "cwd", "plugins"]) mkdirSync(join(root, dir));
  return { root, agentDir: join(root, "agent"), cwd: join(root, "cwd"), plugins: [], files: 0, sessions: new Map(), next: 1, spare: null };
}

function dispose() {
  if (!state) return;
  for (const s of [...state.sessions.values(), state.spare].filter(Boolean)) s.session.dispose();
  try {
    rmSync(state.root, { recursive: true, force: true, maxRetries: 3 });
  } catch (err) {
    process.stderr.write(`pi adapter: could not remove ${state.root}: ${err.message}\n`);
  }
  state = null;
}

// The session's hooks as a pi extension: a real tool_call handler that blocks what a "deny" names.
function hooksExtension(hooks, ran) {
  return (pi) => {
    pi.on("tool_call", async (event) => {
      for (const hook of hooks) {
        if (hook.tool !== "*" && hook.tool !== event.toolName) continue;
        ran.push({ tool: event.toolName, decision: hook.decision ?? "allow" });
        if (hook.decision === "deny") return { block: true, reason: hook.message ?? `blocked by a hook on ${hook.tool}` };
      }
      return undefined;
    });
  };
}

// One faux model and one model runtime for the process: requests are strictly sequential, so
// each turn sets its responses just before it prompts.
let runtime = null;
async function modelRuntime() {
  if (!runtime) {
    const faux = fauxProvider();
    const home = mkdtempSync(join(tmpdir(), "toolconformance-pi-models-"));
    const models = await ModelRuntime.create({ authPath: join(home, "auth.json"), modelsPath: join(home, "models.json"), refreshOnCreate: false });
    models.registerNativeProvider(faux.provider);
    await models.setRuntimeApiKey(faux.provider.id, "no-network");
    runtime = { faux, models, home };
  }
  return runtime;
}

async function openPi(hooks = []) {
  const settingsManager = SettingsManager.inMemory({ compaction: { enabled: false }, retry: { enabled: false } });
  const hooksRan = [];
  const resourceLoader = new DefaultResourceLoader({
    cwd: state.cwd, agentDir: state.agentDir, settingsManager,
    additionalExtensionPaths: state.plugins.map((p) => p.file),
    extensionFactories: hooks.length ? [{ name: "toolconformance-hooks", factory: hooksExtension(hooks, hooksRan) }] : [],
    noSkills: true, noPromptTemplates: true, noThemes: true, noContextFiles: true,
  });
  await resourceLoader.reload();
  const { faux, models } = await modelRuntime();
  const { session } = await createAgentSession({
    cwd: state.cwd, agentDir: state.agentDir, modelRuntime: models, model: faux.getModel(), thinkingLevel: "off",
    resourceLoader, settingsManager, sessionManager: SessionManager.inMemory(state.cwd),
  });
  await session.bindExtensions({});
  return { session, faux, resourceLoader, hooksRan, specHooks: hooks };
}

function sessionOf(id) {
  const s = state.sessions.get(id);
  if (!s) throw Object.assign(new Error(`no session ${id}`), { refusal: error("unknown-session", `pi adapter: no session ${JSON.stringify(id)}`) });
  return s;
}

// One faux turn: `first` answers the model request; returns what the requests carried. The turn is
// then rewound with pi's own tree navigation (as /tree does), so every compose and call meets the
// session as it was opened instead of a transcript that grows with each check.
async function turn(s, first, text) {
  let seen = null;
  s.faux.setResponses([
    (context, options) => {
      seen = { context, options };
      return first(context);
    },
    (context) => {
      seen.next = context;
      return fauxAssistantMessage(fauxText("done"));
    },
  ]);
  const manager = s.session.sessionManager;
  const before = new Set(manager.getBranch().map((e) => e.id));
  await s.session.prompt(text);
  const prompted = manager.getBranch().find((e) => !before.has(e.id) && e.type === "message" && e.message?.role === "user");
  if (prompted) await s.session.navigateTree(prompted.id, { summarize: false });
  return seen;
}

async function payloads(context, names = Object.keys(PAYLOAD_MODELS)) {
  const out = {};
  for (const name of names) {
    const [model, stream] = PAYLOAD_MODELS[name];
    let captured = null;
    const noNetwork = async () => {
      throw new Error("toolconformance: no network");
    };
    const events = stream(model, context, {
      apiKey: "no-network", fetch: noNetwork, maxRetries: 0,
      onPayload: (params) => {
        captured = params;
      },
    });
    await events.result();
    out[name] = captured;
  }
  return out;
}

// An Anthropic tool_result content (a string, or text and image blocks) as content items.
function contentItems(content) {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return (content ?? []).map((c) => (c.type === "image" && c.source?.type === "base64"
    ? { type: "image", data: c.source.data, mimeType: c.source.media_type }
    : c.type === "text" ? { type: "text", text: c.text } : c));
}

const operations = {
  async install_plugin({ plugin }) {
    // A new path for every file: pi caches an extension's factory by its path.
    const file = join(state.root, "plugins", `${String(++state.files).padStart(3, "0")}.js`);
    writeFileSync(file, buildPluginSource(plugin, "pi", { shared: true }));
    state.plugins.push({ doc: plugin, file });
    state.spare?.session.dispose();
    state.spare = null;
    const probe = await openPi();
    try {
      const loaded = probe.resourceLoader.getExtensions();
      const errors = loaded.errors.filter((e) => e.path === file).map((e) => String(e.error));
      if (!loaded.extensions.some((e) => e.path === file)) {
        // pi did not load the extension at all (its factory threw): nothing of it is registered.
        state.plugins.pop();
        return error("load", `pi did not load plugin ${plugin.name}: ${errors.join("; ") || "no extension"}`, { subject: plugin.name });
      }
      const owners = new Map(probe.session.getAllTools().map((t) => [t.name, t.sourceInfo?.path]));
      const names = plugin.tools.map((t) => t.name);
      const accepted = [...new Set(names.filter((n) => owners.get(n) === file))];
      const refused = [...new Set(names.filter((n) => !accepted.includes(n)))].map((tool) => {
        const message = errors.find((e) => e.includes(`"${tool}"`)) ?? errors[0]
          ?? `pi's registry holds ${tool} from ${owners.get(tool) ?? "no extension"}, not from this plugin`;
        return { tool, message }; // pi names no seam rule, and the kit asks for none
      });
      return { plugin: plugin.name, accepted, refused, findings: [], diagnostics: errors };
    } finally {
      // A session nobody prompted yet: the next open_session without hooks takes it as it is.
      state.spare = probe;
    }
  },

  async open_session({ spec }) {
    const hooks = Array.isArray(spec?.hooks) ? spec.hooks : [];
    let opened = state.spare;
    state.spare = null;
    if (!opened || hooks.length) {
      opened?.session.dispose();
      opened = await openPi(hooks);
    }
    const id = `s${state.next++}`;
    state.sessions.set(id, opened);
    return { session: id };
  },

  async compose({ session }) {
    const s = sessionOf(session);
    const seen = await turn(s, () => fauxAssistantMessage(fauxText("composed")), "compose");
    const declared = getCurrentTools(seen.context.messages);
    const catalog = s.session.getAllTools()
      .filter((t) => t.exposure !== "hidden")
      .map((t) => ({ name: t.name, deferred: t.exposure === "deferred" }));
    const pl = await payloads(seen.context, ["openai"]);
    return {
      catalog,
      tools: declared.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
      // The OpenAI Responses request body pi-ai builds: its tools are {type, name, description,
      // parameters, strict}, the shape the kit reads.
      payload: pl.openai,
      diagnostics: {},
      modeDirective: null,
    };
  },

  async call({ session, tool, arguments: args, callId }) {
    const s = sessionOf(session);
    const id = callId ?? `call-${++callCount}`;
    const hooksBefore = s.hooksRan.length;
    // pi has no tool timeout, and its abort() waits for the tool to settle: a handler that never
    // finishes holds the session for good. Past the bound the adapter answers a timed-out call and
    // gives the session id a fresh pi session over the same plugins and hooks.
    let timer;
    const timedOut = new Promise((resolve) => {
      timer = setTimeout(() => resolve(null), bound * 1000);
    });
    const seen = await Promise.race([
      turn(s, () => fauxAssistantMessage(fauxToolCall(tool, args, { id }), { stopReason: "toolUse" }), `call ${tool}`),
      timedOut,
    ]).finally(() => clearTimeout(timer));
    if (seen === null) {
      void s.session.abort().catch(() => {});
      state.sessions.set(session, await openPi(s.specHooks));
      const record = takeCallRecord(id);
      const text = `pi did not finish the call of ${tool} within ${bound} s`;
      return {
        tool, callId: id, content: [{ type: "text", text }], isError: true, shown: true, handlerRan: record.ran,
        journal: { callId: id, tool, arguments: args }, details: {}, refusal: null, transport: false, timedOut: true,
        hooksRan: s.hooksRan.slice(hooksBefore).map((h) => h.tool), observations: record.observations,
        modelResult: { type: "tool_result", tool, callId: id, content: [{ type: "text", text }], isError: true },
      };
    }
    const record = takeCallRecord(id);
    const messages = seen?.next?.messages ?? [];
    const result = messages.findLast((m) => m.role === "toolResult" && m.toolCallId === id);
    const assistant = messages.findLast((m) => m.role === "assistant" && m.content?.some?.((c) => c.type === "toolCall" && c.id === id));
    const sent = assistant?.content.find((c) => c.type === "toolCall" && c.id === id);
    const provider = seen?.next ? await payloads(seen.next, ["anthropic"]) : {};
    const block = provider.anthropic?.messages?.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .findLast((c) => c.type === "tool_result" && c.tool_use_id === id);
    const hooksRan = s.hooksRan.slice(hooksBefore);
    const blockedByHook = hooksRan.some((h) => h.decision === "deny");
    const isError = result?.isError ?? true;
    const content = result?.content ?? [{ type: "text", text: "pi returned no tool result (aborted)" }];
    let refusal = null;
    if (!record.ran && isError) {
      const text = content.map((c) => c.text ?? "").join(" ");
      const stage = blockedByHook ? "hook" : /not found|unknown tool/i.test(text) ? "lookup" : /validat/i.test(text) ? "validation" : "pipeline";
      refusal = { stage, rule: null, message: text };
    }
    return {
      tool, callId: id, content, isError, shown: true, handlerRan: record.ran,
      journal: sent ? { callId: sent.id, tool: sent.name, arguments: sent.arguments } : null,
      details: result?.details ?? {}, refusal, transport: false,
      hooksRan: hooksRan.map((h) => h.tool), observations: record.observations,
      // What the model receives: the tool_result block of pi-ai's Anthropic request, its content
      // read back into content items; `block` is that block exactly as sent.
      modelResult: block
        ? { type: "tool_result", tool, callId: block.tool_use_id, content: contentItems(block.content), isError: block.is_error === true, block }
        : null,
    };
  },
};

// Plugin code in pi reads nothing of the seam's identity or access: there is no such API.
installScriptedHost({});

const wrapped = Object.fromEntries(Object.entries(operations).map(([name, op]) => [name, async (params) => {
  await loadPi();
  try {
    return await op(params);
  } catch (err) {
    if (err.refusal) return err.refusal;
    throw err;
  }
}]));

serve({
  name: "pi", version: VERSION, capabilities: ["registration", "composition", "calls", "hooks"], operations: wrapped,
  // pi keeps the extension that registered a tool name first: a later extension's tool of that name
  // is not in getAllTools() under its path (install_plugin above reports it refused).
  collisions: "first-wins",
  hello: (_params, session) => {
    bound = session.pluginTimeBound;
    dispose();
    state = fresh();
    setTimeout(() => loadPi().catch(() => {}), 0); // after the answer is written
  },
  reset: async () => {
    await loadPi();
    dispose();
    state = fresh();
  },
  stop: () => {
    dispose();
    if (runtime) rmSync(runtime.home, { recursive: true, force: true });
  },
});
