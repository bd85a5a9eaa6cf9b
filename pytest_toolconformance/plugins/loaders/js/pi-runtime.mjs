// pi's runtime as a pi extension meets it, after pi 1.6.0's own source
// (dist/core/extensions/loader.js, runner.js, agent-session.js of @earendil-works/pi-coding-agent):
//
// * resolution: where the plugin's folder resolves the real pi package (either name), the plugin
//   gets it, and the siblings and TypeBox are mapped as pi's loader maps them (getAliases());
//   otherwise the kit's stand-in, and TypeBox / the siblings from the plugin's own folder under
//   both of their names.
// * the ExtensionAPI an `export default function (pi)` receives: registrations are kept, action
//   methods throw during loading as pi's do, and answer as pi does in print mode afterwards.
// * the ExtensionContext of event handlers and tool calls: cwd, hasUI false with pi's no-UI
//   answers, an in-memory session, the call's signal, shutdown() recorded.
// * the lifecycle pi runs before the first tool is offered: session_start {reason: "startup"},
//   then resources_discover.

import fs from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const STAND_IN = path.join(HERE, "pi-coding-agent.mjs");
const SCOPES = ["@earendil-works", "@mariozechner"];
const SIBLINGS = ["pi-agent-core", "pi-tui", "pi-ai"];

// -- resolution ---------------------------------------------------------------------------------

function packageDir(name, fromDir) {
  for (let dir = path.resolve(fromDir); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (fs.existsSync(path.join(candidate, "package.json"))) return fs.realpathSync(candidate);
    if (path.dirname(dir) === dir) return null;
  }
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}

function conditionTarget(entry) {
  if (typeof entry === "string") return entry;
  if (entry === null || typeof entry !== "object") return null;
  for (const key of ["import", "node", "default", "require"]) {
    if (key in entry) {
      const found = conditionTarget(entry[key]);
      if (found) return found;
    }
  }
  return null;
}

/** The file an ESM import of ``name`` + ``subpath`` from ``fromDir`` reaches (null if none). */
function packageEntry(name, fromDir, subpath = ".") {
  const dir = packageDir(name, fromDir);
  return dir === null ? null : entryOfDir(dir, subpath);
}

function entryOfDir(dir, subpath = ".") {
  const pkg = readJson(path.join(dir, "package.json")) ?? {};
  let target = null;
  const exp = pkg.exports;
  if (typeof exp === "string" || Array.isArray(exp)) target = subpath === "." ? conditionTarget(exp) : null;
  else if (exp && typeof exp === "object") {
    const keyed = Object.keys(exp).some((k) => k.startsWith("."));
    target = conditionTarget(keyed ? exp[subpath] : subpath === "." ? exp : null);
  } else {
    target = subpath === "." ? pkg.module ?? pkg.main ?? "index.js" : subpath;
  }
  if (!target) return null;
  const file = path.resolve(dir, target);
  return fs.existsSync(file) ? file : null;
}

/** Whether ``version`` (like "20.20.2") satisfies every ">=", ">", "^" clause of ``range``. */
export function satisfies(version, range) {
  const parse = (v) => String(v).replace(/^v/, "").split(".").map((n) => Number.parseInt(n, 10) || 0);
  const cmp = (a, b) => {
    for (let i = 0; i < 3; i += 1) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
    return 0;
  };
  const have = parse(version);
  return String(range)
    .split("||")
    .some((alternative) =>
      alternative.trim().split(/\s+/).filter(Boolean).every((clause) => {
        const m = /^(>=|>|\^|~)?v?([\d.x*]+)$/.exec(clause);
        if (!m) return true;
        const want = parse(m[2]);
        if (m[1] === ">=") return cmp(have, want) >= 0;
        if (m[1] === ">") return cmp(have, want) > 0;
        if (m[1] === "^") return have[0] === want[0] && cmp(have, want) >= 0;
        return cmp(have, want) >= 0;
      }),
    );
}

/**
 * What the plugin at ``entry`` gets for pi's modules: ``{aliases, pi, problem}``. ``pi`` describes
 * the real package when the folder resolves it; ``problem`` is the one-line reason it cannot run.
 */
export function piResolution(entry) {
  const fromDir = path.dirname(entry);
  let found = null;
  for (const scope of SCOPES) {
    const dir = packageDir(`${scope}/pi-coding-agent`, fromDir);
    if (dir !== null) {
      found = { name: `${scope}/pi-coding-agent`, dir };
      break;
    }
  }
  const aliases = {};
  const both = (name, target) => {
    if (!target) return;
    for (const scope of SCOPES) aliases[`${scope}/${name}`] = target;
  };
  if (found !== null) {
    const pkg = readJson(path.join(found.dir, "package.json")) ?? {};
    const pi = { name: found.name, dir: found.dir, version: pkg.version ?? "?", engines: pkg.engines?.node ?? null };
    const index = entryOfDir(found.dir) ?? path.join(found.dir, "dist", "index.js");
    pi.index = index;
    if (pi.engines && !satisfies(process.versions.node, pi.engines)) {
      return {
        aliases,
        pi,
        problem:
          `it resolves ${pi.name} ${pi.version} (${found.dir}), which needs Node.js ${pi.engines}, but the kit runs ` +
          `Node.js ${process.version} (${process.execPath}); point the kit at a newer node with ` +
          "TOOLCONFORMANCE_NODE=/path/to/node",
      };
    }
    both("pi-coding-agent", index);
    both("pi-agent-core", packageEntry("@earendil-works/pi-agent-core", found.dir));
    both("pi-tui", packageEntry("@earendil-works/pi-tui", found.dir));
    const view = path.join(found.dir, "dist", "core", "extensions", "pi-ai-extension-view.js");
    const piAi = fs.existsSync(view) ? view : packageEntry("@earendil-works/pi-ai", found.dir);
    both("pi-ai", piAi);
    both("pi-ai/compat", piAi);
    for (const sub of ["models", "oauth", "providers/all"]) {
      both(`pi-ai/${sub}`, packageEntry("@earendil-works/pi-ai", found.dir, `./${sub}`));
    }
    for (const sub of [".", "./compile", "./value"]) {
      const target = packageEntry("typebox", found.dir, sub);
      if (!target) continue;
      const suffix = sub === "." ? "" : sub.slice(1);
      aliases[`typebox${suffix}`] = target;
      aliases[`@sinclair/typebox${suffix}`] = target;
    }
    return { aliases, pi, problem: null };
  }
  both("pi-coding-agent", STAND_IN);
  for (const sibling of SIBLINGS) {
    const target = SCOPES.map((scope) => packageEntry(`${scope}/${sibling}`, fromDir)).find(Boolean);
    // The plugin's own copy where it has one, else the kit's stand-in with every export name.
    both(sibling, target ?? path.join(HERE, `${sibling}.mjs`));
    if (sibling === "pi-ai") both("pi-ai/compat", target ?? path.join(HERE, "pi-ai.mjs"));
  }
  for (const sub of [".", "./compile", "./value"]) {
    const target = packageEntry("typebox", fromDir, sub);
    if (!target) continue;
    const suffix = sub === "." ? "" : sub.slice(1);
    aliases[`typebox${suffix}`] = target;
    aliases[`@sinclair/typebox${suffix}`] = target;
  }
  return { aliases, pi: null, problem: null };
}

/** The jiti pi would transpile with: the plugin's own, else the one the real pi package brings. */
export function jitiPath(requireFromPlugin, pi) {
  try {
    return requireFromPlugin.resolve("jiti");
  } catch {
    if (pi !== null) {
      const dir = packageDir("jiti", pi.dir);
      if (dir !== null) {
        const pkg = readJson(path.join(dir, "package.json")) ?? {};
        const target = pkg.exports?.["."]?.require ?? pkg.main ?? "lib/jiti.cjs";
        const file = path.resolve(dir, typeof target === "string" ? target : conditionTarget(target) ?? "lib/jiti.cjs");
        if (fs.existsSync(file)) return file;
      }
    }
    return null;
  }
}

export function aliasUrls(aliases) {
  return Object.fromEntries(Object.entries(aliases).map(([k, v]) => [k, pathToFileURL(v).href]));
}

/** URL prefixes of the real packages' own built files, which keep their own resolution. */
export function ownPrefixes(resolution) {
  const prefixes = new Set();
  if (resolution.pi !== null) prefixes.add(pathToFileURL(path.join(resolution.pi.dir, "dist")).href + "/");
  for (const target of Object.values(resolution.aliases)) {
    if (target === STAND_IN) continue;
    const marker = `${path.sep}node_modules${path.sep}`;
    const at = target.lastIndexOf(marker);
    if (at < 0) continue;
    const rest = target.slice(at + marker.length).split(path.sep);
    const root = target.slice(0, at + marker.length) + (rest[0].startsWith("@") ? rest.slice(0, 2) : rest.slice(0, 1)).join(path.sep);
    if (resolution.pi !== null && root === resolution.pi.dir) continue; // its examples are extensions
    prefixes.add(pathToFileURL(root).href + "/");
  }
  return [...prefixes];
}

// -- the ExtensionAPI ---------------------------------------------------------------------------

const NOT_INITIALIZED = "Extension runtime not initialized. Action methods cannot be called during extension loading.";

/**
 * pi's ExtensionAPI for one extension. ``registerTool`` is the kit's (it reports the tool);
 * everything else is kept on ``extension`` the way pi's loader keeps it.
 */
export function createPiApi({ registerTool, log, extras, execCwd }) {
  const extension = {
    handlers: new Map(),
    commands: new Map(),
    flags: new Map(),
    shortcuts: new Map(),
    renderers: [],
    providers: [],
    mcpServers: new Map(),
    actions: [],
  };
  let state = "loading";
  const flagValues = new Map();
  const activeTools = { names: null };
  const busHandlers = new Map();
  const registered = [];
  const action = (name, answer) => (...args) => {
    if (state === "loading") throw new Error(NOT_INITIALIZED);
    extension.actions.push({ name, args: args.length });
    return typeof answer === "function" ? answer(...args) : answer;
  };
  const api = {
    on(event, handler) {
      const list = extension.handlers.get(event) ?? [];
      list.push(handler);
      extension.handlers.set(event, list);
      return () => {
        const current = extension.handlers.get(event) ?? [];
        extension.handlers.set(event, current.filter((h) => h !== handler));
      };
    },
    registerTool(tool, ...rest) {
      if (tool && typeof tool === "object") registered.push(tool);
      return registerTool(tool, ...rest);
    },
    registerCommand(name, options) {
      if (typeof name !== "string" || name.length === 0) {
        throw new Error('Command registered by extension must have a non-empty string name. Use pi.registerCommand("name", { description, handler }).');
      }
      if (typeof options?.handler !== "function") throw new Error(`Command "/${name}" registered by extension must define handler().`);
      extension.commands.set(name, { name, ...options });
    },
    registerShortcut(shortcut, options) {
      extension.shortcuts.set(shortcut, { shortcut, ...options });
    },
    registerFlag(name, options) {
      if (options?.default !== undefined && typeof options.default !== options.type) {
        throw new Error(`Invalid default for flag "${name}": expected ${options.type}, got ${typeof options.default}`);
      }
      extension.flags.set(name, { name, ...options });
      if (options?.default !== undefined && !flagValues.has(name)) flagValues.set(name, options.default);
    },
    getFlag(name) {
      return extension.flags.has(name) ? flagValues.get(name) : undefined;
    },
    registerMessageRenderer(customType, renderer) {
      extension.renderers.push({ customType, renderer });
    },
    registerMarkdownTransformer(transformer) {
      extension.renderers.push({ transformer });
    },
    registerEntryRenderer(customType, renderer) {
      extension.renderers.push({ customType, renderer });
    },
    registerToolRenderer(resolver) {
      extension.renderers.push({ resolver });
    },
    sendMessage: action("sendMessage"),
    sendUserMessage: action("sendUserMessage"),
    appendEntry: action("appendEntry"),
    setSessionName: action("setSessionName"),
    getSessionName: action("getSessionName", undefined),
    setLabel: action("setLabel"),
    getActiveTools: action("getActiveTools", () => activeTools.names ?? registered.map((t) => t.name)),
    getAllTools: action("getAllTools", () =>
      registered.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters, sourceInfo: { source: "local" } })),
    ),
    getSettings: action("getSettings", () => ({})),
    setActiveTools: action("setActiveTools", (names) => {
      activeTools.names = Array.isArray(names) ? [...names] : null;
    }),
    getCommands: action("getCommands", () => [...extension.commands.values()].map((c) => ({ name: c.name, description: c.description, source: "extension" }))),
    setModel: (model) => (state === "loading" ? Promise.reject(new Error("Extension runtime not initialized")) : Promise.resolve(false)),
    getThinkingLevel: action("getThinkingLevel", "off"),
    setThinkingLevel: action("setThinkingLevel"),
    exec(command, args = [], options = {}) {
      return execCommand(command, args, options.cwd ?? execCwd(), options);
    },
    registerProvider(providerOrName, config) {
      if (typeof providerOrName === "string" && !config) throw new Error("Provider config is required when registering by name");
      extension.providers.push(typeof providerOrName === "string" ? providerOrName : providerOrName?.id);
    },
    unregisterProvider(name) {
      extension.providers = extension.providers.filter((p) => p !== name);
    },
    registerMcpServer(name, config) {
      extension.mcpServers.set(name, { name, config });
    },
    unregisterMcpServer(name) {
      extension.mcpServers.delete(name);
    },
    getMcpServers() {
      return [...extension.mcpServers.values()];
    },
    registerVirtualModel(model) {
      extension.providers.push(model?.provider);
    },
    unregisterVirtualModel() {},
    events: {
      emit(channel, data) {
        for (const handler of busHandlers.get(channel) ?? []) {
          Promise.resolve()
            .then(() => handler(data))
            .catch((error) => log("error")(`events:${channel} handler threw ${error?.message ?? error}`));
        }
      },
      on(channel, handler) {
        const list = busHandlers.get(channel) ?? [];
        list.push(handler);
        busHandlers.set(channel, list);
        return () => busHandlers.set(channel, (busHandlers.get(channel) ?? []).filter((h) => h !== handler));
      },
    },
    ...extras,
  };
  const warned = new Set();
  const proxy = new Proxy(api, {
    get(target, property) {
      if (property in target || typeof property === "symbol" || property === "then") return target[property];
      return (..._args) => {
        if (!warned.has(property)) {
          warned.add(property);
          log("warning")(`pi.${String(property)}() is not part of pi 1.6.0's ExtensionAPI; ignored by the kit`);
        }
        return undefined;
      };
    },
  });
  return {
    api: proxy,
    extension,
    bind() {
      state = "active";
    },
  };
}

function execCommand(command, args, cwd, options) {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let killed = false;
    const child = spawn(command, args, { cwd, shell: false, stdio: ["ignore", "pipe", "pipe"] });
    const timer = options.timeout ? setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, options.timeout) : null;
    const onAbort = () => {
      killed = true;
      child.kill("SIGKILL");
    };
    options.signal?.addEventListener?.("abort", onAbort, { once: true });
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", (error) => resolve({ stdout, stderr: stderr + String(error.message), code: 1, killed }));
    child.on("close", (code) => {
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener?.("abort", onAbort);
      resolve({ stdout, stderr, code: code ?? 0, killed });
    });
  });
}

// -- the ExtensionContext -----------------------------------------------------------------------

// pi's noOpUIContext (runner.js): what a session without a UI answers.
function noOpUI() {
  const theme = new Proxy({}, {
    get: (_t, p) => (p === "then" || typeof p === "symbol" ? undefined : (...a) => String(a[a.length - 1] ?? "")),
  });
  return {
    select: async () => undefined,
    confirm: async () => false,
    input: async () => undefined,
    notify: () => {},
    onTerminalInput: () => () => {},
    setStatus: () => {},
    setWorkingMessage: () => {},
    setWorkingVisible: () => {},
    setWorkingIndicator: () => {},
    setHiddenThinkingLabel: () => {},
    setWidget: () => {},
    setFooter: () => {},
    setHeader: () => {},
    setTitle: () => {},
    custom: async () => undefined,
    pasteToEditor: () => {},
    setEditorText: () => {},
    getEditorText: () => "",
    editor: async () => undefined,
    addAutocompleteProvider: () => {},
    setEditorComponent: () => {},
    getEditorComponent: () => undefined,
    theme,
    getAllThemes: () => [],
    getTheme: () => undefined,
    setTheme: () => ({ success: false, error: "UI not available" }),
    getToolsExpanded: () => false,
    setToolsExpanded: () => {},
  };
}

const modelRegistry = Object.freeze({
  getAll: () => [],
  getAvailable: () => [],
  find: () => undefined,
  getApiKey: async () => undefined,
  getApiKeyForProvider: async () => undefined,
  isUsingOAuth: () => false,
  refresh: () => {},
  registerProvider: () => {},
  unregisterProvider: () => {},
});

/**
 * pi's ExtensionContext (runner.createContext, plus createToolContext's tools/executeTool for a
 * call). ``events`` records what the plugin asked of the session (shutdown, abort).
 */
export function createContext({ cwd, signal, sessionManager, events, extras, busy }) {
  const ui = noOpUI();
  const controller = { signal };
  return {
    ...extras,
    ui,
    mode: "print",
    hasUI: false,
    cwd,
    sessionManager,
    modelRegistry,
    model: undefined,
    scopedModels: [],
    thinkingLevel: "off",
    isIdle: () => !busy,
    isProjectTrusted: () => false,
    signal: controller.signal,
    abort: () => events.push("abort"),
    hasPendingMessages: () => false,
    shutdown: () => events.push("shutdown"),
    getContextUsage: () => undefined,
    compact: () => {},
    getSystemPrompt: () => "",
    tools: [],
    executeTool: async (name) => {
      throw new Error(`Tool "${name}" is not available: the conformance kit runs one extension's tools alone`);
    },
  };
}

/** A session manager over an empty in-memory session: the real pi's where it is loaded, else the stand-in's. */
export async function inMemorySession(resolution, cwd) {
  const target = resolution.aliases["@earendil-works/pi-coding-agent"] ?? STAND_IN;
  try {
    const mod = await import(pathToFileURL(target).href);
    return mod.SessionManager.inMemory(cwd);
  } catch {
    const mod = await import(pathToFileURL(STAND_IN).href);
    return mod.SessionManager.inMemory(cwd);
  }
}

/**
 * pi's startup, as AgentSession.bindExtensions runs it: session_start {reason: "startup"}, then
 * resources_discover. A handler that throws is reported (pi shows it as an extension error) and the
 * others still run.
 */
export async function runStartup(extension, makeContext, cwd, report) {
  const events = [
    { type: "session_start", reason: "startup" },
    { type: "resources_discover", cwd, reason: "startup" },
  ];
  for (const event of events) {
    const handlers = extension.handlers.get(event.type) ?? [];
    if (!handlers.length) continue;
    const ctx = await makeContext();
    for (const handler of handlers) {
      try {
        await handler(event, ctx);
      } catch (error) {
        report(event.type, error);
      }
    }
  }
}
