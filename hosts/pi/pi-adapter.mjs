// pi under the conformance kit, for any line of pi: the adapter contract mapped onto pi's real
// runtime. The wire protocol and the scripted-plugin builder come from the kit's JavaScript host
// kit; this file maps pi's own operations, and a `line` (hosts/pi/adapter.mjs for pi 1.6,
// hosts/pi-0.73/adapter.mjs for the @mariozechner 0.73 line) says how that line of pi is imported
// and started:
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
// are the ones pi honestly has, and each host's deviations.toml says where it differs from the seam.
//
// A line is an object:
//   load()                  import pi (seconds; more on a loaded machine); afterwards:
//   version                 pi's version, for the hello
//   faux                    pi-ai's { fauxAssistantMessage, fauxText, fauxToolCall }
//   agent                   pi-coding-agent's module (SettingsManager, DefaultResourceLoader,
//                           createAgentSession, SessionManager)
//   models()                the process's one faux model: { faux, options }, where `faux` has setResponses
//                           and getModel(), and `options` are createAgentSession's model options
//   factory(name, fn)       an inline extension factory as this line's DefaultResourceLoader takes it
//   requestTools(context)   the tools of a model request pi built
//   catalog(session)        [{name, deferred}] of every tool pi holds
//   payloadModels           { anthropic: [model, stream], openai: [model, stream] } of pi-ai
//   stop()                  remove what load/open made outside the adapter's state
//   collisions              "first-wins" or "last-wins": which extension keeps a tool name two register

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const KIT = process.env.TOOLCONFORMANCE_JS_KIT ?? new URL("../../pytest_toolconformance/host/js/", import.meta.url).pathname;
const kit = (file) => import(pathToFileURL(join(KIT, file)).href);
const { serve, error } = await kit("wire.mjs");
const { buildPluginSource } = await kit("scripted.mjs");
const { installScriptedHost, takeCallRecord } = await kit("steps.mjs");

// pi transpiles every extension through jiti, which caches each file it transpiled in the OS temp folder
// (os.tmpdir()/jiti) and never removes one. The kit's scripted plugins are new files on every run, so that
// folder only grows (26,720 files, 290 MB on one CI machine). pi and this adapter get a temp folder of their
// own, removed when the adapter exits; jiti still caches within the run.
const ownTemp = mkdtempSync(join(tmpdir(), "toolconformance-pi-tmp-"));
process.env.TMPDIR = ownTemp;
process.on("exit", () => rmSync(ownTemp, { recursive: true, force: true, maxRetries: 3 }));


let line = null; // the line of pi being served (servePi)
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

// A pi session over the installed plugins (and the spec's hooks), as pi itself starts one.
async function openPi(hooks = []) {
  const hooksRan = [];
  const { agent } = line;
  const { cwd, agentDir } = state;
  const settingsManager = agent.SettingsManager.inMemory({ compaction: { enabled: false }, retry: { enabled: false } });
  const resourceLoader = new agent.DefaultResourceLoader({
    cwd, agentDir, settingsManager, additionalExtensionPaths: state.plugins.map((p) => p.file),
    extensionFactories: hooks.length ? [line.factory("toolconformance-hooks", hooksExtension(hooks, hooksRan))] : [],
    noSkills: true, noPromptTemplates: true, noThemes: true, noContextFiles: true,
  });
  await resourceLoader.reload();
  const { faux, options } = await line.models();
  const { session } = await agent.createAgentSession({
    cwd, agentDir, ...options, model: faux.getModel(), thinkingLevel: "off",
    resourceLoader, settingsManager, sessionManager: agent.SessionManager.inMemory(cwd),
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
      return line.faux.fauxAssistantMessage(line.faux.fauxText("done"));
    },
  ]);
  const manager = s.session.sessionManager;
  const before = new Set(manager.getBranch().map((e) => e.id));
  await s.session.prompt(text);
  const prompted = manager.getBranch().find((e) => !before.has(e.id) && e.type === "message" && e.message?.role === "user");
  if (prompted) await s.session.navigateTree(prompted.id, { summarize: false });
  return seen;
}

async function payloads(context, names = Object.keys(line.payloadModels)) {
  const out = {};
  for (const name of names) {
    const [model, stream] = line.payloadModels[name];
    let captured = null;
    const noNetwork = async () => {
      throw new Error("toolconformance: no network");
    };
    // The request body is all the kit reads: the stream stops once pi-ai has built it. A line whose
    // serialiser takes no `fetch` (pi 0.73's builds its provider SDK's own client) would otherwise
    // try the network, and wait for it, on every compose and call.
    const events = stream(model, context, {
      apiKey: "no-network", fetch: noNetwork, maxRetries: 0,
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
    const seen = await turn(s, () => line.faux.fauxAssistantMessage(line.faux.fauxText("composed")), "compose");
    const declared = line.requestTools(seen.context);
    const catalog = line.catalog(s.session);
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
      turn(s, () => line.faux.fauxAssistantMessage(line.faux.fauxToolCall(tool, args, { id }), { stopReason: "toolUse" }),
        `call ${tool}`),
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
      // No block when no next request was made of the result (the host failed on it): the key is then left
      // out, as the wire schema allows, rather than sent as null.
      ...(block
        ? { modelResult: { type: "tool_result", tool, callId: block.tool_use_id, content: contentItems(block.content), isError: block.is_error === true, block } }
        : {}),
    };
  },
};

// Plugin code in pi reads nothing of the seam's identity or access: there is no such API.
installScriptedHost({});

const wrapped = Object.fromEntries(Object.entries(operations).map(([name, op]) => [name, async (params) => {
  await line.load();
  try {
    return await op(params);
  } catch (err) {
    if (err.refusal) return err.refusal;
    throw err;
  }
}]));

/** Serve the adapter contract over the wire for `chosen`, a line of pi (see the top of this file). */
export function servePi(chosen) {
  line = chosen;
  serve({
    name: "pi", version: line.version, capabilities: ["registration", "composition", "calls", "hooks"], operations: wrapped,
    collisions: line.collisions,
    hello: (_params, session) => {
      bound = session.pluginTimeBound;
      dispose();
      state = fresh();
      setTimeout(() => line.load().catch(() => {}), 0); // after the answer is written
    },
    reset: async () => {
      await line.load();
      dispose();
      state = fresh();
    },
    stop: () => {
      dispose();
      line.stop();
    },
  });
}
