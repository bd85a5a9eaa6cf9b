// OpenClaw's plugin runtime as an OpenClaw plugin meets it, after openclaw 2026.9.6's own dist/:
//
// * the entry's export, resolved as module-export-BbYMQUy2.mjs:12 (resolvePluginModuleExport) does:
//   nested `default`s unwrapped, a function is `register`, an object's `register` is taken (the
//   shapes of definePluginEntry and defineToolPlugin, and a plain `{register}`);
// * register(api) must be synchronous: a returned promise is refused with OpenClaw's words
//   (setup-registry-Cbh_jUlx.mjs:438, "plugin register must be synchronous");
// * api.registerTool(tool | factory(ctx) | {contextVersion: 2, create}, {name, names, optional}), as
//   registerTool at loader-runtime-load-CMBCNIWa.mjs:4170: the options are reported with each tool, and
//   a factory is called with the trusted execution context OpenClaw builds per turn
//   (tools-CvXdkvXK.mjs:45, createPluginToolFactoryContext): messageChannel, agentAccountId,
//   requesterSenderId, senderIsOwner, workspaceDir, sandboxed. Whether a name is in the manifest's
//   contracts.tools is judged on the kit's side (plugins/loaders/openclaw.py), from what is reported here;
// * every other api method (registerHook, registerService, on, registerCommand, ...) is recorded and
//   does nothing: the kit checks tools, and a plugin that also adds hooks or channels still loads;
// * a tool's execute is called as OpenClaw's agent loop calls it: execute(toolCallId, params, signal, onUpdate).

const SYNC_ERROR = "plugin register must be synchronous";

/** The register function and definition of an entry module, as OpenClaw resolves them (null: none). */
export function resolveOpenClawExport(moduleExport) {
  let unwrapped = moduleExport;
  const unwrapSeen = new Set();
  while (unwrapped && typeof unwrapped === "object" && "default" in unwrapped && !unwrapSeen.has(unwrapped)) {
    unwrapSeen.add(unwrapped);
    unwrapped = unwrapped.default;
  }
  const candidates = [unwrapped, moduleExport];
  const seen = new Set();
  for (let index = 0; index < candidates.length && index < 12; index += 1) {
    const resolved = candidates[index];
    if (seen.has(resolved)) continue;
    seen.add(resolved);
    if (typeof resolved === "function") return { form: "openclaw-register", fn: resolved, self: undefined };
    if (resolved && typeof resolved === "object") {
      if (typeof resolved.register === "function") {
        return { form: formOf(resolved), fn: resolved.register, self: resolved };
      }
      for (const key of ["default", "module"]) if (key in resolved) candidates.push(Reflect.get(resolved, key));
    }
  }
  return null;
}

function formOf(definition) {
  if (definition[Symbol.for("openclaw.plugin-sdk.tool-plugin.metadata")]) return "openclaw-defineToolPlugin";
  return "id" in definition && "configSchema" in definition ? "openclaw-definePluginEntry" : "openclaw-object";
}

/** A value that answers every property with itself and every call with undefined: what the kit gives
 * for OpenClaw's runtime helpers (api.runtime.*), which reach the gateway the kit does not run. */
function inert(path) {
  const target = function inertRuntimeMember() {};
  return new Proxy(target, {
    get(_, key) {
      if (key === "then" || typeof key === "symbol") return undefined;
      return inert(`${path}.${String(key)}`);
    },
    apply() {
      return undefined;
    },
  });
}

/**
 * The `api` an OpenClaw plugin's register receives.
 *
 * registerTool: the kit's registerTool(tool, options) (bridge.mjs), given each concrete tool with its
 * registration's options as OpenClaw takes them ({name, names, optional}, plus factory: true for a tool
 * a factory made). log: the bridge's log(level). context: what the factory context is built from.
 */
export function createOpenClawApi({ registerTool, log, manifest, workspace, context }) {
  const pending = [];
  const recorded = [];
  const id = typeof manifest?.id === "string" ? manifest.id : "plugin";
  const logger = Object.freeze({
    info: log("info"),
    warn: log("warning"),
    error: log("error"),
    debug: log("info"),
  });

  function optionsOf(opts) {
    if (opts === undefined || opts === null || typeof opts !== "object") return {};
    const out = {};
    if (typeof opts.name === "string") out.name = opts.name;
    if (Array.isArray(opts.names)) out.names = opts.names.filter((n) => typeof n === "string");
    if (opts.optional === true) out.optional = true;
    return out;
  }

  function concrete(tool) {
    if (tool === null || typeof tool !== "object") return tool;
    // OpenClaw's agent loop calls execute(toolCallId, params, signal, onUpdate) and nothing more.
    return new Proxy(tool, {
      get(target, key, receiver) {
        if (key !== "execute" || typeof target.execute !== "function") return Reflect.get(target, key, receiver);
        return (toolCallId, params, signal, onUpdate) => target.execute(toolCallId, params, signal, onUpdate);
      },
    });
  }

  const api = {
    id,
    name: typeof manifest?.name === "string" ? manifest.name : id,
    version: undefined,
    description: typeof manifest?.description === "string" ? manifest.description : undefined,
    source: context.source,
    rootDir: context.rootDir,
    registrationMode: "full",
    config: {},
    pluginConfig: {},
    runtime: inert("api.runtime"),
    logger,
    resolvePath: (input) => (typeof input === "string" ? input.replace(/^~(?=$|\/)/, workspace) : input),
    registerTool(tool, opts) {
      const options = optionsOf(opts);
      const versioned = tool !== null && typeof tool === "object" && "contextVersion" in tool;
      if (typeof tool === "function" || versioned) {
        if (versioned && (tool.contextVersion !== 2 || typeof tool.create !== "function")) {
          log("error")("unsupported plugin tool context version");
          return;
        }
        pending.push({ factory: versioned ? (ctx) => tool.create(ctx) : tool, options });
        return;
      }
      registerTool(concrete(tool), { ...options });
    },
  };
  for (const grouped of ["session", "agent", "runContext", "lifecycle"]) api[grouped] = inert(`api.${grouped}`);

  const guarded = new Proxy(api, {
    get(target, key, receiver) {
      if (typeof key === "symbol" || key in target) return Reflect.get(target, key, receiver);
      if (key === "then") return undefined;
      // registerHook, registerService, registerCommand, on, registerChannel, ...: recorded, inert.
      return (...args) => {
        recorded.push(String(key));
        return undefined;
      };
    },
  });

  /** What OpenClaw does once register returned: refuse an async register, then (as each turn does)
   * build the factories' tools with the turn's trusted context. A factory that throws or returns
   * nothing contributes no tool, with OpenClaw's words in the log (tools-CvXdkvXK.mjs:177 and :491);
   * one that returns a promise hands OpenClaw an object without a name, and so it is registered here. */
  function finish(returned) {
    if (returned !== null && (typeof returned === "object" || typeof returned === "function") && typeof returned.then === "function") {
      Promise.resolve(returned).catch(() => {});
      const error = new Error(SYNC_ERROR);
      error.name = "OpenClawRegisterNotSynchronous";
      throw error;
    }
    for (const { factory, options } of pending) {
      const names = [...(options.names ?? []), ...(options.name ? [options.name] : [])];
      let made;
      try {
        made = factory(factoryContext(context));
      } catch (error) {
        log("error")(`plugin tool failed (${id}): ${error?.message ?? String(error)}`);
        continue;
      }
      if (made === null || made === undefined) {
        log("info")(`plugin tool factory returned null (${id}): [${names.join(", ")}]`);
        continue;
      }
      for (const tool of Array.isArray(made) ? made : [made]) registerTool(concrete(tool), { ...options, factory: true });
    }
    if (recorded.length > 0) log("info")(`OpenClaw api calls besides registerTool (inert in the kit): ${[...new Set(recorded)].join(", ")}`);
  }

  return { api: guarded, finish };
}

function factoryContext(context) {
  return {
    config: {},
    runtimeConfig: {},
    getRuntimeConfig: () => ({}),
    workspaceDir: context.workspace,
    agentDir: context.agentDir,
    agentId: "main",
    sessionKey: "agent:main:toolconformance",
    sessionId: context.sessionId,
    messageChannel: context.messageChannel,
    agentAccountId: context.accountId,
    requesterSenderId: context.senderId,
    senderIsOwner: context.senderIsOwner,
    sandboxed: false,
    assertInvocationCurrent: () => undefined,
  };
}
