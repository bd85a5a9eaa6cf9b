// OpenClaw (the `openclaw` npm package) under the conformance kit: the adapter contract mapped onto
// OpenClaw's real code, in process, with no gateway, no model and no network.
//
//   install_plugin  the scripted plugin becomes a real OpenClaw plugin folder (package.json naming its
//                   entry in `openclaw.extensions`, openclaw.plugin.json with `contracts.tools`), found
//                   through `plugins.load.paths` and loaded by OpenClaw's own plugin loader into a
//                   plugin registry. The report is that registry (its tools and its diagnostics) and
//                   the tool list OpenClaw then composes for a session.
//   open_session    createOpenClawCodingTools (openclaw/plugin-sdk/agent-harness) over that config:
//                   OpenClaw's core tools, the plugin tools it resolves under its tool policy
//                   (`tools.deny` from the spec's permissions), wrapped as OpenClaw wraps them; an
//                   Agent (openclaw/plugin-sdk/agent-core) holding them, driven by a faux model; the
//                   spec's hooks become a plugin with a real before_tool_call handler.
//   compose         one faux turn: the tools of the request the Agent really makes, and the OpenAI
//                   Responses request body @openclaw/ai's serialiser builds from it.
//   call            a faux tool call run by the Agent's loop: OpenClaw's argument preparation,
//                   validation, before_tool_call hooks, execution in the plugin's scope;
//                   `modelResult` is the tool_result block of the next request as @openclaw/ai's
//                   Anthropic serialiser builds it.
//
// OpenClaw has no seam accounts, live policies, registration scopes, plan mode, sandbox or transport
// tag: the capabilities below are the ones it has (README.md says how its policy relates to the seam).

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const KIT = process.env.TOOLCONFORMANCE_JS_KIT ?? new URL("../../pytest_toolconformance/host/js/", import.meta.url).pathname;
const kit = (file) => import(pathToFileURL(join(KIT, file)).href);
const { serve, error } = await kit("wire.mjs");
const { scriptedPluginProblem } = await kit("scripted.mjs");
const { installScriptedHost, takeCallRecord, runSteps, scriptedTool, ScriptedError } = await kit("steps.mjs");

const PACKAGE = new URL("node_modules/openclaw/", import.meta.url);
const VERSION = JSON.parse(readFileSync(new URL("package.json", PACKAGE), "utf8")).version;
// OpenClaw exports no plugin loader in its SDK; its CLI (`openclaw plugins inspect --runtime`) reads
// the registry's diagnostics through these modules of the pinned release (src/plugins/loader.ts, and
// the loader's registry cache, emptied on reset: every kit check's plugins are a new config to it).
const LOADER = new URL("dist/loader-BaZWJ2oT.mjs", PACKAGE);
const LOADER_RUNTIME = new URL("dist/loader-runtime-load-CMBCNIWa.mjs", PACKAGE);

// OpenClaw reads and writes its state under the home folder (~/.openclaw) and the OS temp folder:
// both are a folder of the adapter's own, removed when it exits, so a run never sees or changes the
// machine's OpenClaw.
const ownTemp = mkdtempSync(join(tmpdir(), "toolconformance-openclaw-"));
for (const dir of ["home", "tmp"]) mkdirSync(join(ownTemp, dir));
process.env.HOME = join(ownTemp, "home");
process.env.TMPDIR = join(ownTemp, "tmp");
process.env.OPENCLAW_STATE_DIR = join(ownTemp, "home", ".openclaw");
process.env.OPENCLAW_CONFIG_PATH = join(ownTemp, "home", ".openclaw", "openclaw.json");
delete process.env.VITEST; // OpenClaw turns plugins off under its own test runner
process.on("exit", () => rmSync(ownTemp, { recursive: true, force: true, maxRetries: 3 }));

const SCRIPTED = Symbol.for("pytest-toolconformance.scripted-host");

let oc = null; // OpenClaw's modules, once loaded
let ready = null;
let state = null;
let bound = 2; // seconds plugin code may run in one call (from the kit's timeout)
let callCount = 0;
let pluginCount = 0; // across resets: a plugin module's path is never reused (Node caches modules by path)

// OpenClaw's import takes seconds (tens on a loaded machine): the hello waits for it, under the kit's
// bound for a host's start, which is longer than a request's (a host restarted after a fault would
// otherwise spend its first reset's whole bound importing, and be killed again).
const load = () => (ready ??= Promise.all([
  import("openclaw/plugin-sdk/agent-harness"), import("openclaw/plugin-sdk/agent-core"),
  import("openclaw/plugin-sdk/llm"), import("@openclaw/ai/internal/openai"), import("@openclaw/ai/internal/anthropic"),
  import(LOADER.href), import(LOADER_RUNTIME.href), import("openclaw/plugin-sdk/hook-runtime"),
]).then(([harness, core, llm, openai, anthropic, loader, loaderRuntime, hookRuntime]) => {
  oc = {
    createOpenClawCodingTools: harness.createOpenClawCodingTools,
    Agent: core.Agent,
    createAssistantMessageEventStream: llm.createAssistantMessageEventStream,
    streamOpenAIResponses: openai.streamOpenAIResponses,
    streamAnthropic: anthropic.streamAnthropic,
    loadPluginRegistryHandle: loader.r,
    clearPluginRegistryLoadCache: loaderRuntime.X,
    initializeGlobalHookRunner: hookRuntime.initializeGlobalHookRunner,
    resetGlobalHookRunner: hookRuntime.resetGlobalHookRunner,
  };
}));

// The faux model: never reached over the network (its turns are answered by `respond` below, and the
// payload serialisers stop once the request body is built).
const MODEL = {
  id: "toolconformance-faux", name: "faux", api: "openai-responses", provider: "toolconformance", baseUrl: "http://127.0.0.1:9/v1",
  reasoning: false, input: ["text", "image"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1_000_000, maxTokens: 4096,
};
const PAYLOAD_MODELS = {
  openai: { ...MODEL, id: "gpt-5", provider: "openai", api: "openai-responses" },
  anthropic: { ...MODEL, id: "claude-sonnet-4-5", provider: "anthropic", api: "anthropic-messages", baseUrl: "http://127.0.0.1:9" },
};

function assistant(content, stopReason) {
  const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  return {
    role: "assistant", content, api: MODEL.api, provider: MODEL.provider, model: MODEL.id, stopReason, timestamp: Date.now(),
    usage: { ...zero, totalTokens: 0, cost: { ...zero, total: 0 } },
  };
}

function fresh() {
  const root = mkdtempSync(join(ownTemp, "state-"));
  for (const dir of ["plugins", "workspace"]) mkdirSync(join(root, dir));
  return { root, workspace: join(root, "workspace"), plugins: [], sessions: new Map(), next: 1 };
}

function dispose() {
  if (!state) return;
  for (const s of state.sessions.values()) s.agent.abort?.();
  hookHandlers.clear();
  rmSync(state.root, { recursive: true, force: true, maxRetries: 3 });
  state = null;
}

// An OpenClaw plugin id from a scripted plugin's name: ids are lower-case words joined by dashes.
function pluginId(name, n) {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || "plugin";
  return `tc${String(n).padStart(4, "0")}-${slug}`.slice(0, 64); // ids sort in install order
}

// The plugin's entry module. OpenClaw calls register(api) and refuses one that returns a promise
// ("plugin register must be synchronous"), so the entry registers synchronously here rather than
// through the kit's async registerScripted.
function entrySource(doc, id) {
  return [
    `// Built by pytest-toolconformance from the scripted plugin ${JSON.stringify(doc.name)} (OpenClaw form).`,
    `const host = globalThis[Symbol.for("pytest-toolconformance.scripted-host")];`,
    `const PLUGIN = JSON.parse(${JSON.stringify(JSON.stringify(doc))});`,
    `export default { id: ${JSON.stringify(id)}, name: PLUGIN.name, register(api) { host.openclaw.register(PLUGIN, api); } };`,
    "",
  ].join("\n");
}

/** Register a scripted plugin on OpenClaw's plugin api, synchronously. */
function registerOnApi(doc, api) {
  for (const step of doc.register ?? []) {
    if (step.op === "throw") throw new ScriptedError(String(step.message ?? "scripted failure"));
    void runSteps([step], null, { ctx: api }).catch(() => {});
  }
  for (const spec of doc.tools ?? []) {
    const tool = scriptedTool(spec, { ctx: api });
    if (spec.options === undefined) api.registerTool(tool);
    else api.registerTool(tool, { ...spec.options });
  }
}

// OpenClaw's config for this state: the installed plugins found through plugins.load.paths (and only
// they: `plugins.allow` keeps OpenClaw's bundled plugins out), and the tool policy.
function config(deny = []) {
  return {
    plugins: { load: { paths: state.plugins.map((p) => p.dir) }, allow: state.plugins.map((p) => p.id) },
    tools: deny.length ? { deny } : {},
  };
}

// OpenClaw compares tool names lower-cased and trimmed (normalizeToolPolicyName).
const key = (name) => String(name).trim().toLowerCase();

let coreNames = null;
/** The names of OpenClaw's core tools: a session's tool list with no plugin installed. */
function coreToolNames() {
  coreNames ??= new Set(oc.createOpenClawCodingTools({
    config: { plugins: { allow: [] } }, workspaceDir: state.workspace, agentId: "main", sessionKey: "agent:main:main",
    modelProvider: MODEL.provider, modelId: MODEL.id,
  }).map((t) => t.name));
  return coreNames;
}

function codingTools(deny = []) {
  return oc.createOpenClawCodingTools({
    config: config(deny), workspaceDir: state.workspace, agentId: "main", sessionKey: "agent:main:main",
    modelProvider: MODEL.provider, modelId: MODEL.id,
  });
}

// The session's hooks as an OpenClaw plugin: a real before_tool_call handler (api.on) that blocks what a
// "deny" names, in a registry of its own that the call hands OpenClaw's global hook runner. OpenClaw
// matches hooks by the tool's name lower-cased, as it compares every tool name.
let hookPlugins = 0;
function hooksRegistry(hooks, ran) {
  const n = ++hookPlugins;
  const id = `tchooks${String(n).padStart(4, "0")}`;
  const dir = join(state.root, "plugins", `hooks-${n}`);
  mkdirSync(dir);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `toolconformance-${id}`, version: "1.0.0", type: "module", openclaw: { extensions: ["./index.js"] } }));
  writeFileSync(join(dir, "openclaw.plugin.json"), JSON.stringify({ id, name: id, configSchema: { type: "object", additionalProperties: false } }));
  hookHandlers.set(id, (event) => {
    for (const hook of hooks) {
      if (hook.tool !== "*" && key(hook.tool) !== key(event.toolName)) continue;
      ran.push({ tool: event.toolName, decision: hook.decision ?? "allow" });
      if (hook.decision === "deny") return { block: true, blockReason: hook.message ?? `blocked by a hook on ${hook.tool}` };
    }
    return undefined;
  });
  writeFileSync(join(dir, "index.js"), [
    `const host = globalThis[Symbol.for("pytest-toolconformance.scripted-host")];`,
    `export default { id: ${JSON.stringify(id)}, name: ${JSON.stringify(id)}, register(api) { api.on("before_tool_call", (event) => host.openclaw.hook(${JSON.stringify(id)}, event)); } };`,
    "",
  ].join("\n"));
  const config = { plugins: { load: { paths: [dir] }, allow: [id], entries: { [id]: { enabled: true } } } };
  const registry = oc.loadPluginRegistryHandle({ config, workspaceDir: state.workspace, onlyPluginIds: [id] });
  const problems = registry.diagnostics.filter((d) => d.pluginId === id && d.level === "error");
  if (problems.length || !registry.typedHooks.some((h) => h.pluginId === id)) {
    throw new Error(`OpenClaw did not register the session's hooks: ${problems.map((d) => d.message).join("; ") || "no before_tool_call hook"}`);
  }
  return registry;
}
const hookHandlers = new Map();

function openAgent(spec) {
  const deny = Array.isArray(spec?.permissions?.deny) ? spec.permissions.deny.map(String) : [];
  const hooks = Array.isArray(spec?.hooks) ? spec.hooks : [];
  const tools = codingTools(deny);
  const s = { responses: [], deny, hooks, hooksRan: [], hookRegistry: null, agent: null };
  if (hooks.length) s.hookRegistry = hooksRegistry(hooks, s.hooksRan);
  const streamFn = (_model, context) => {
    const stream = oc.createAssistantMessageEventStream();
    const message = s.responses.shift()(context);
    queueMicrotask(() => {
      stream.push({ type: "start", partial: message });
      stream.push({ type: "done", reason: message.stopReason, message });
    });
    return stream;
  };
  s.agent = new oc.Agent({
    streamFn, getApiKey: () => "no-network",
    initialState: { model: MODEL, tools, systemPrompt: "", thinkingLevel: "off", messages: [] },
  });
  return s;
}

function sessionOf(id) {
  const s = state.sessions.get(id);
  if (!s) throw Object.assign(new Error(`no session ${id}`), { refusal: error("unknown-session", `openclaw adapter: no session ${JSON.stringify(id)}`) });
  return s;
}

// One faux turn: `first` answers the model's request; returns the requests' contexts. The transcript
// is emptied afterwards, so every compose and call meets the session as it was opened.
async function turn(s, first, text) {
  const seen = {};
  s.responses = [
    (context) => {
      seen.context = context;
      return first(context);
    },
    (context) => {
      seen.next = context;
      return assistant([{ type: "text", text: "done" }], "stop");
    },
  ];
  try {
    await s.agent.prompt(text);
  } finally {
    s.agent.state.messages = [];
  }
  return seen;
}

// The request body a provider serialiser of @openclaw/ai builds for `context`; nothing is sent.
async function payload(name, context) {
  const stream = name === "openai" ? oc.streamOpenAIResponses : oc.streamAnthropic;
  let captured = null;
  const events = stream(PAYLOAD_MODELS[name], context, {
    apiKey: "no-network", maxRetries: 0,
    fetch: async () => {
      throw new Error("toolconformance: no network");
    },
    onPayload: (params) => {
      captured = params;
      throw new Error("toolconformance: the request body is built; nothing is sent");
    },
  });
  try {
    await events.result();
  } catch {
    // the stream's end after the stop above
  }
  return captured;
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
    const problem = scriptedPluginProblem(plugin);
    if (problem) return error("manifest", `openclaw adapter: ${problem}`, { subject: plugin?.name ?? null });
    const n = ++pluginCount;
    const id = pluginId(plugin.name, n);
    const dir = join(state.root, "plugins", String(n).padStart(4, "0"));
    mkdirSync(dir);
    const names = [...new Set(plugin.tools.map((t) => t.name).filter((name) => typeof name === "string" && name.trim()))];
    writeFileSync(join(dir, "package.json"), JSON.stringify({
      name: `toolconformance-${id}`, version: "1.0.0", type: "module", openclaw: { extensions: ["./index.js"] },
    }));
    writeFileSync(join(dir, "openclaw.plugin.json"), JSON.stringify({
      id, name: plugin.name, configSchema: { type: "object", additionalProperties: false }, contracts: { tools: names },
    }));
    writeFileSync(join(dir, "index.js"), entrySource(plugin, id));
    state.plugins.push({ doc: plugin, id, dir });

    // OpenClaw's loader over the new plugin (a plugin's registrations do not depend on the others': names
    // are compared across plugins when a session's tools are resolved).
    const own = { plugins: { load: { paths: [dir] }, allow: [id] } };
    const registry = oc.loadPluginRegistryHandle({ config: own, workspaceDir: state.workspace, toolDiscovery: true, onlyPluginIds: [id] });
    const record = registry.plugins.find((p) => p.id === id);
    const diagnostics = registry.diagnostics.filter((d) => d.pluginId === id).map((d) => `${d.level}: ${d.message}`);
    if (!record || record.status !== "loaded") {
      // OpenClaw did not load the plugin (its register threw): nothing of it is registered.
      state.plugins.pop();
      return error("load", `OpenClaw did not load plugin ${plugin.name}: ${diagnostics.join("; ") || record?.error || "not found"}`, { subject: plugin.name });
    }
    // Registered, then kept when OpenClaw resolves the plugin's tools (it leaves out a malformed one),
    // and not a name (compared lower-cased) that a core tool or an earlier plugin's tool has: OpenClaw
    // leaves such a tool out of a session's tool list.
    const registered = new Set(registry.tools.filter((t) => t.pluginId === id).flatMap((t) => t.names));
    const taken = new Map([...coreToolNames()].map((name) => [key(name), "OpenClaw's core tool"]));
    for (const p of state.plugins.slice(0, -1)) for (const name of p.accepted) taken.set(key(name), `plugin ${p.id}`);
    const composed = new Set(oc.createOpenClawCodingTools({
      config: own, workspaceDir: state.workspace, agentId: "main", sessionKey: "agent:main:main", includeCoreTools: false,
    }).map((t) => t.name));
    const accepted = names.filter((name) => registered.has(name) && composed.has(name) && !taken.has(key(name)));
    state.plugins.at(-1).accepted = accepted;
    const refused = names.filter((name) => !accepted.includes(name)).map((tool) => {
      let message = diagnostics.find((d) => d.includes(tool)) ?? (!registered.has(tool) ? diagnostics[0] : undefined);
      if (!message && taken.has(key(tool))) message = `plugin tool name conflict (${id}): ${tool} is ${taken.get(key(tool))}'s name`;
      message ??= `plugin tool is malformed (${id}): OpenClaw leaves ${tool} out of a session's tool list`;
      return { tool, message };
    });
    return { plugin: plugin.name, accepted, refused, findings: [], diagnostics };
  },

  async open_session({ spec }) {
    const id = `s${state.next++}`;
    state.sessions.set(id, openAgent(spec));
    return { session: id };
  },

  async compose({ session }) {
    const s = sessionOf(session);
    const seen = await turn(s, () => assistant([{ type: "text", text: "composed" }], "stop"), "compose");
    const tools = seen.context.tools ?? [];
    return {
      catalog: tools.map((t) => ({ name: t.name, deferred: false })),
      tools: tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
      // The OpenAI Responses request body @openclaw/ai builds: its tools are {type, name, description,
      // parameters, strict}, the shape the kit reads.
      payload: await payload("openai", seen.context),
      diagnostics: {},
      modeDirective: null,
    };
  },

  async call({ session, tool, arguments: args, callId }) {
    const s = sessionOf(session);
    const id = callId ?? `call-${++callCount}`;
    // A handler that never finishes would hold the Agent: past the bound the adapter answers a
    // timed-out call and gives the session id a fresh Agent over the same tools.
    let timer;
    const timedOut = new Promise((resolve) => {
      timer = setTimeout(() => resolve(null), bound * 1000);
    });
    const hooksBefore = s.hooksRan.length;
    // OpenClaw's hook runner is one per process: it gets this session's hooks (or none) for the call.
    if (s.hookRegistry) oc.initializeGlobalHookRunner(s.hookRegistry);
    else oc.resetGlobalHookRunner();
    const seen = await Promise.race([
      turn(s, () => assistant([{ type: "toolCall", id, name: tool, arguments: args }], "toolUse"), `call ${tool}`),
      timedOut,
    ]).finally(() => clearTimeout(timer));
    const record = takeCallRecord(id);
    if (seen === null) {
      s.agent.abort?.();
      state.sessions.set(session, openAgent({ permissions: { deny: s.deny }, hooks: s.hooks }));
      const text = `OpenClaw did not finish the call of ${tool} within ${bound} s`;
      return {
        tool, callId: id, content: [{ type: "text", text }], isError: true, shown: true, handlerRan: record.ran,
        journal: { callId: id, tool, arguments: args }, details: {}, refusal: null, transport: false, timedOut: true,
        hooksRan: s.hooksRan.slice(hooksBefore).map(() => tool), observations: record.observations,
        modelResult: { type: "tool_result", tool, callId: id, content: [{ type: "text", text }], isError: true },
      };
    }
    const messages = seen.next?.messages ?? [];
    const result = messages.findLast((m) => m.role === "toolResult" && m.toolCallId === id);
    const sent = messages.findLast((m) => m.role === "assistant")?.content?.find?.((c) => c.type === "toolCall" && c.id === id);
    const provider = seen.next ? await payload("anthropic", seen.next) : null;
    const block = provider?.messages?.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .findLast((c) => c.type === "tool_result" && c.tool_use_id === id);
    const isError = result?.isError ?? true;
    const content = result?.content ?? [{ type: "text", text: "OpenClaw returned no tool result" }];
    const hooksRan = s.hooksRan.slice(hooksBefore);
    const blockedByHook = hooksRan.some((h) => h.decision === "deny");
    let refusal = null;
    // A hook's block is a plain text result in OpenClaw (not flagged isError), the hook's reason as its text.
    if (!record.ran && (isError || blockedByHook)) {
      const text = content.map((c) => c.text ?? "").join(" ");
      const stage = blockedByHook ? "hook"
        : /not found|unknown tool|not available/i.test(text) ? "lookup" : /validat/i.test(text) ? "validation" : "pipeline";
      refusal = { stage, rule: null, message: text };
    }
    return {
      tool, callId: id, content, isError, shown: true, handlerRan: record.ran,
      journal: sent ? { callId: sent.id, tool: sent.name, arguments: sent.arguments } : null,
      details: result?.details ?? {}, refusal, transport: false, hooksRan: hooksRan.map(() => tool),
      observations: record.observations,
      // What the model receives: the tool_result block of @openclaw/ai's Anthropic request, its content
      // read back into content items; `block` is that block exactly as sent.
      // No block when no next request was made of the result (the host failed on it): the key is then left
      // out, as the wire schema allows, rather than sent as null.
      ...(block
        ? { modelResult: { type: "tool_result", tool, callId: block.tool_use_id, content: contentItems(block.content), isError: block.is_error === true, block } }
        : {}),
    };
  },
};

// Plugin code in OpenClaw reads nothing of the seam's identity or access: there is no such API (a
// tool factory gets its context instead).
installScriptedHost({});
globalThis[SCRIPTED].openclaw = { register: registerOnApi, hook: (id, event) => hookHandlers.get(id)?.(event) };

const wrapped = Object.fromEntries(Object.entries(operations).map(([name, op]) => [name, async (params) => {
  await load();
  try {
    return await op(params);
  } catch (err) {
    if (err.refusal) return err.refusal;
    throw err;
  }
}]));

serve({
  name: "openclaw", version: VERSION, capabilities: ["registration", "composition", "calls", "hooks"], operations: wrapped,
  // OpenClaw keeps the tool of the plugin it resolves first (tools-CvXdkvXK.mjs: "plugin tool name conflict");
  // load paths and ids both follow install order here.
  collisions: "first-wins",
  hello: async (_params, session) => {
    bound = session.pluginTimeBound;
    dispose();
    state = fresh();
    await load();
  },
  reset: async () => {
    await load();
    dispose();
    oc.clearPluginRegistryLoadCache();
    state = fresh();
  },
  stop: () => dispose(),
});
