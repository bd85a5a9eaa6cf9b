// The scripted-plugin step interpreter for JavaScript hosts (docs/host-implementers.md, scripted
// plugins). The JavaScript twin of reference_host/scripted.py: a plugin module built by
// scripted.mjs imports this file and runs its register and handler steps here.
//
// What a step needs from the host (identity, access, a live policy change, the transport tag) comes
// from the plugin's own context where the host's plugin API offers it (the seam's ctx), else from
// the operations the host adapter installed with installScriptedHost(). A host that offers neither
// gets `{op, value: null, unavailable: "..."}` observations: the check then sees what is missing.
//
// The adapter and every copy of this module (a host may transpile or re-import plugin code, as
// pi's jiti loader does) share one registry on globalThis, so observations made inside plugin
// code always reach the adapter.

const REGISTRY = Symbol.for("pytest-toolconformance.scripted-host");

function registry() {
  globalThis[REGISTRY] ??= { ops: {}, calls: new Map() };
  return globalThis[REGISTRY];
}

/** Install the host adapter's operations: {identity, access, account, policy, transport, onCall}.
 * `onCall(record)` is told when a handler starts; `transport` is {markTransportFailure,
 * isTransportFailure} or absent where the host has no transport tag. */
export function installScriptedHost(ops) {
  registry().ops = { ...ops };
  registry().steps = { registerScripted };
}

/** The record of handler runs for a call id: {ran, observations}, created on first use. */
export function callRecord(callId) {
  const calls = registry().calls;
  if (!calls.has(callId)) calls.set(callId, { ran: false, observations: [] });
  return calls.get(callId);
}

/** Take (and forget) what the handlers of `callId` recorded. */
export function takeCallRecord(callId) {
  const record = callRecord(callId);
  registry().calls.delete(callId);
  return record;
}

export class ScriptedError extends Error {
  constructor(message) {
    super(message);
    this.name = "ScriptedError";
  }
}

/** JSON with sorted keys and Python's separators, so an echo reads the same from every host. */
export function sortedJson(value) {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}: ${sortedJson(value[k])}`).join(", ")}}`;
  }
  return value === undefined ? "null" : JSON.stringify(value);
}

const textResult = (text, details) => ({ content: [{ type: "text", text }], details });

function pointer(key) {
  if (!key.startsWith("/")) return null;
  return key.slice(1).split("/").map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function parentOf(params, tokens) {
  let node = params;
  for (const token of tokens.slice(0, -1)) {
    if (node !== null && typeof node === "object" && !Array.isArray(node) && Object.hasOwn(node, token)) node = node[token];
    else if (Array.isArray(node) && /^\d+$/.test(token) && Number(token) < node.length) node = node[Number(token)];
    else return null;
  }
  return node;
}

// In place, so a nested mutation changes the very objects the handler was given (NAME-7 checks
// that none of it reaches the journal).
function setAt(params, key, value) {
  const tokens = pointer(key);
  if (tokens === null) {
    params[key] = value;
    return;
  }
  const node = parentOf(params, tokens);
  const last = tokens.at(-1);
  if (Array.isArray(node)) {
    if (last === "-") node.push(value);
    else if (/^\d+$/.test(last) && Number(last) < node.length) node[Number(last)] = value;
  } else if (node !== null && typeof node === "object") node[last] = value;
}

function deleteAt(params, key) {
  const tokens = pointer(key);
  if (tokens === null) {
    delete params[key];
    return;
  }
  const node = parentOf(params, tokens);
  const last = tokens.at(-1);
  if (Array.isArray(node)) {
    if (/^\d+$/.test(last) && Number(last) < node.length) node.splice(Number(last), 1);
  } else if (node !== null && typeof node === "object") delete node[last];
}

function transportOf(env) {
  return env.transport ?? registry().ops.transport ?? null;
}

/** ERR-5 facts about the host's markTransportFailure / isTransportFailure (all false without them). */
export function transportProbe(transport) {
  if (!transport) {
    return {
      returnsSameError: false, taggedIsTransport: false, plainIsTransport: false,
      noneIsTransport: false, stringIsTransport: false, objectIsTransport: false, survivesRethrow: false,
    };
  }
  const { markTransportFailure: mark, isTransportFailure: is } = transport;
  const tagged = new ScriptedError("probe");
  const returned = mark(tagged);
  let survived = false;
  try {
    try {
      throw tagged;
    } catch (error) {
      throw error;
    }
  } catch (again) {
    survived = is(again);
  }
  return {
    returnsSameError: returned === tagged,
    taggedIsTransport: is(tagged),
    plainIsTransport: is(new ScriptedError("plain")),
    noneIsTransport: is(null),
    stringIsTransport: is("transport"),
    objectIsTransport: is({ transport: true }),
    survivesRethrow: survived,
  };
}

// A host read: the seam's ctx method where the plugin context has it, else the adapter's operation.
function read(env, ctxMethod, opName) {
  if (typeof env.ctx?.[ctxMethod] === "function") return { value: env.ctx[ctxMethod]() };
  const op = registry().ops[opName];
  if (typeof op === "function") return { value: op(env) };
  return { value: null, unavailable: `the host's plugin context has no ${ctxMethod}()` };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Run register or handler steps; returns the tool result. `env`: {callId, tool, ctx, transport}. */
export async function runSteps(steps, params, env = {}) {
  const record = env.callId === undefined ? null : callRecord(env.callId);
  const observe = (op, value, extra = {}) => record?.observations.push({ op, value, ...extra });
  const details = {};
  for (const step of steps ?? []) {
    switch (step.op) {
      case "text":
        return textResult(String(step.text ?? ""), details);
      case "details":
        Object.assign(details, step.details ?? {});
        break;
      case "echo":
        observe("params", params === undefined ? null : JSON.parse(JSON.stringify(params)));
        return textResult(sortedJson(params), details);
      case "mutate":
        if (params !== null && typeof params === "object") {
          for (const key of step.delete ?? []) deleteAt(params, key);
          for (const [key, value] of Object.entries(step.set ?? {})) setAt(params, key, value);
        }
        break;
      case "throw":
        throw new ScriptedError(String(step.message ?? "scripted failure"));
      case "throw_transport": {
        const error = new ScriptedError(String(step.message ?? "connect ECONNREFUSED"));
        const transport = transportOf(env);
        throw transport ? transport.markTransportFailure(error) : error;
      }
      case "sleep":
        await sleep(Number(step.seconds ?? 0) * 1000);
        break;
      case "hang":
        await new Promise(() => {});
        break;
      case "identity":
      case "access":
      case "account": {
        const [method, op] = {
          identity: ["currentIdentity", "identity"],
          access: ["currentAccess", "access"],
          account: ["currentAccountUserId", "account"],
        }[step.op];
        const { value, unavailable } = read(env, method, op);
        observe(step.op, value, unavailable ? { unavailable } : {});
        break;
      }
      case "policy": {
        const policy = registry().ops.policy;
        if (typeof policy === "function") await policy(String(step.account), step.changes ?? {}, env);
        else observe("policy", null, { unavailable: "the host adapter installed no policy operation" });
        break;
      }
      case "transport_probe": {
        const probe = transportProbe(transportOf(env));
        observe("transport_probe", probe);
        return textResult(sortedJson(probe), details);
      }
      case "raw":
        return step.result;
      case "image":
        return { content: [{ type: "image", data: step.data ?? "", mimeType: step.mimeType ?? "image/png" }], details };
      default:
        throw new ScriptedError(`scripted step ${JSON.stringify(step.op)} is unknown`);
    }
  }
  return textResult("ok", details);
}

/** The tool definition of a scripted tool: {name, label, description, parameters, execute}. */
export function scriptedTool(spec, env = {}) {
  return {
    name: spec.name,
    label: spec.label || spec.name,
    description: spec.description ?? `Scripted tool ${spec.name}.`,
    parameters: spec.parameters ?? { type: "object", properties: {} },
    async execute(callId, params) {
      const record = callRecord(callId);
      record.ran = true;
      registry().ops.onCall?.({ callId, tool: spec.name, params });
      return runSteps(spec.handler, params, { ...env, callId, tool: spec.name });
    },
  };
}

/** Register every tool of a scripted plugin through `registerTool(tool, options?)`; the options are
 * passed exactly as the document gives them (a deliberately wrong `external` included), and left
 * out where the document has none. */
export async function registerScripted(doc, { registerTool, defineTool = (t) => t, ctx, transport }) {
  await runSteps(doc.register ?? [], null, { ctx, transport });
  for (const spec of doc.tools ?? []) {
    const tool = defineTool(scriptedTool(spec, { ctx, transport }));
    if (spec.options === undefined) registerTool(tool);
    else registerTool(tool, { ...spec.options });
  }
}
