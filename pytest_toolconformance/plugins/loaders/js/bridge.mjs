// Node side of the conformance kit's JS plugin loader (pytest_toolconformance/plugins/loaders/node.py).
//
// One bridge process serves one plugin for the whole test run.
//
// LINE PROTOCOL
// -------------
// (py/bridge.py speaks the same protocol for Python plugins, with kind:"python" loads.)
// Every message is one JSON object on one line (UTF-8, "\n"-terminated).
//
//   Python -> node, on stdin: requests, each with a numeric "id"; one at a time (the Python side
//   holds a lock and waits for the answer before sending the next request).
//     {id, op:"load", entry, kind:"esm"|"ts", replay:bool, fresh:bool, workspace, mirror:{access, identity, accountUserId},
//      openclaw?:{manifest, context}}   (openclaw: load it as OpenClaw does, openclaw-api.mjs)
//         (fresh: a new instance of the plugin in this process, for a check that must not see what
//         earlier checks' calls left in the old one; its registrations are reported as on a replay)
//     {id, op:"call", tool, handle, callId, params, cwd, access, identity, accountUserId}
//     {id, op:"mirror", access, identity, accountUserId}        (update the live ctx mirror)
//     {id, op:"ping"}
//
//   node -> Python, on stdout: every protocol line starts with the marker the Python side puts
//   in TOOLCONF_BRIDGE_MARK (an ASCII record separator, "tcb:", a random nonce and "@"). Python
//   reads the text after the marker and treats every unmarked byte as plugin noise. On top of
//   that, console.* and process.stdout.write are redirected to stderr, so a plugin's ordinary
//   output never reaches the protocol stream; the marker only guards against raw writes to fd 1.
//     {op:"ready", pid, node}                                   once, at start-up
//     {id, ok:true, form, tools:[{handle, name}], network:[...]}           answer to load
//     {id, ok:true, result, network:[...]}                                 answer to call
//     {id, ok:true, pid, node}                                             answer to ping/mirror
//     {id, ok:false, error:{name, message, stack, transport, code, phase, token}, network:[...]}
//   One-way notes, tagged with the id of the request in progress (or null):
//     {op:"log", id, level:"info"|"warning"|"error", message}
//     {op:"phase", id, phase:"kit"|"import"|"register"|"startup"}   (a load entered that phase; each is bounded
//         apart; "kit" is the kit's own set-up, importing pi's runtime, and never counts as the plugin's time)
//     {op:"read", id, method:"currentIdentity"|"currentAccess"|"currentAccountUserId"}
//     {op:"tool", id, handle, name, label, description, parameters, hasExecute, options?}
//         (a registerTool() during a mirror-mode or replayed load; "options" is absent when the
//         plugin passed none, and holds exactly what it passed otherwise)
//
//   Synchronous host calls during a first load (POSIX only): when TOOLCONF_CTX_FD names a pipe,
//   a registerTool() or current*() call made by register() is sent as
//     {op:"ctx", id, method, args}
//   and the bridge blocks on a read of that pipe for the one-line reply
//     {ok:true, value} | {ok:false, error:{name, message, token}}
//   so the Python ctx is called at that moment and a host refusal is thrown back into the plugin.
//   Without the pipe (Windows) or on a replayed load, reads answer from the mirror and
//   registrations are reported with the one-way notes above.
//
// NETWORK GUARD
// -------------
// Plugins are untrusted and the kit has no network: fetch, net, tls, http(s) and dns are replaced
// before the plugin is imported with versions that fail asynchronously like a transport fault
// (ECONNREFUSED / ENOTFOUND). What a request touched is reported as "network". This is a guard
// against accidental traffic, not a sandbox (child processes and worker threads are not covered).
// One host name is let through: the kit's fault origin (origin.toolconformance.invalid, which no
// resolver answers), a server in this process on a local socket with no address on any network,
// which answers /status/5xx with that status and resets the connection of /reset, so a tool's
// handling of the faults a refused connection does not show is seen (ERR-3, ERR-4).

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import util from "node:util";
import readline from "node:readline";
import net from "node:net";
import tls from "node:tls";
import http from "node:http";
import https from "node:https";
import dns from "node:dns";
import { createRequire, syncBuiltinESMExports } from "node:module";
import * as nodeModule from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  aliasUrls,
  createContext,
  createPiApi,
  inMemorySession,
  jitiPath,
  ownPrefixes,
  piResolution,
  runStartup,
} from "./pi-runtime.mjs";
import { createOpenClawApi, resolveOpenClawExport } from "./openclaw-api.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MARK = process.env.TOOLCONF_BRIDGE_MARK ?? "\u001etcb:@";
const CTX_FD = process.env.TOOLCONF_CTX_FD ? Number(process.env.TOOLCONF_CTX_FD) : null;
// The plugin must not see (or forge) the bridge's plumbing.
delete process.env.TOOLCONF_BRIDGE_MARK;
delete process.env.TOOLCONF_CTX_FD;

const TRANSPORT_TAG = Symbol.for("elowen.transportFailure");
const BASE_CWD = process.cwd();

// ---------------------------------------------------------------------------------------------
// Output: protocol lines go through the real stdout writer; everything else goes to stderr.

const protocolWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = function write(chunk, encoding, callback) {
  return process.stderr.write(chunk, encoding, callback);
};

function send(message) {
  protocolWrite(MARK + JSON.stringify(message) + "\n");
}

function diag(...args) {
  process.stderr.write(`[toolconformance bridge] ${util.format(...args)}\n`);
}

// ---------------------------------------------------------------------------------------------
// Network guard.

let touched = new Set();
let guardDepth = 0;

function record(kind) {
  // Only the outermost entry point counts: https.get -> tls.connect -> Socket.connect is "https".
  if (guardDepth === 0) touched.add(kind);
}

function guarded(kind, original) {
  return function guardedEntry(...args) {
    record(kind);
    guardDepth += 1;
    try {
      return original.apply(this, args);
    } finally {
      guardDepth -= 1;
    }
  };
}

function isAddressLiteral(host) {
  return !host || host === "localhost" || net.isIP(String(host).replace(/^\[|\]$/g, "")) !== 0;
}

function transportError(code, syscall, host, port) {
  const where = host ? `${host}${port !== undefined && port !== null ? `:${port}` : ""}` : "";
  const error = new Error(`${syscall} ${code}${where ? ` ${where}` : ""}`);
  error.code = code;
  error.errno = code === "ENOTFOUND" ? -3008 : -111;
  error.syscall = syscall;
  if (host) error.hostname = host;
  if (code === "ECONNREFUSED") {
    error.address = host;
    if (port !== undefined) error.port = port;
  }
  return error;
}

function connectTarget(args) {
  // Socket.prototype.connect receives either (options[, cb]), (port[, host][, cb]), (path[, cb])
  // or, from net.connect, the already-normalized [options, cb] array.
  let first = args[0];
  if (Array.isArray(first)) first = first[0];
  if (first !== null && typeof first === "object") {
    return { host: first.host ?? first.hostname ?? (first.path ? undefined : "localhost"), port: first.port, path: first.path };
  }
  if (typeof first === "string" && Number.isNaN(Number(first))) return { path: first };
  return { host: typeof args[1] === "string" ? args[1] : "localhost", port: first };
}

// The fault origin. Its address is a local socket (abstract on Linux, so nothing is written), never
// a port: in the plugin's network namespace no address exists, and outside it none is opened.
const FAULT_HOST = "origin.toolconformance.invalid";
const FAULT_NAME = `toolconformance-fault-${process.pid}-${Math.random().toString(36).slice(2)}`;
const FAULT_ADDRESS =
  process.platform === "win32"
    ? `\\\\.\\pipe\\${FAULT_NAME}`
    : process.platform === "linux"
      ? `\0${FAULT_NAME}`
      : path.join(os.tmpdir(), `${FAULT_NAME.slice(0, 40)}.sock`);
const originalHttpRequest = http.request;

function isFaultHost(host) {
  return typeof host === "string" && host.toLowerCase().replace(/\.$/, "") === FAULT_HOST;
}

function respond(response, code, text) {
  response.writeHead(code, { "content-type": "text/plain; charset=utf-8", connection: "close" });
  response.end(`${text}\n`);
}

const faultOrigin = http.createServer((request, response) => {
  const status = /^\/status\/(5\d\d)(?:[/?#]|$)/.exec(request.url ?? "");
  if (status) {
    touched.add(`${FAULT_HOST} answered ${status[1]}`);
    const phrase = http.STATUS_CODES[status[1]] ?? "Server Error";
    respond(response, Number(status[1]), `${status[1]} ${phrase} (the toolconformance fault origin)`);
  } else if (/^\/reset(?:[/?#]|$)/.test(request.url ?? "")) {
    touched.add(`${FAULT_HOST} reset the connection`);
    // A local socket has no RST to send: closing it before any answer is what the client sees as a
    // reset ("socket hang up", ECONNRESET).
    request.socket.destroy();
  } else {
    respond(response, 404, "not a path of the toolconformance fault origin");
  }
});
const faultOriginReady = new Promise((resolve) => {
  faultOrigin.once("listening", () => resolve(true));
  faultOrigin.once("error", (error) => {
    diag("the fault origin could not listen; its URLs are refused like any other:", error.message);
    resolve(false);
  });
});
faultOrigin.listen(FAULT_ADDRESS);
faultOrigin.unref();

const originalSocketConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function connect(...args) {
  record("net");
  const { host, port, path: ipcPath } = connectTarget(args);
  if (ipcPath === FAULT_ADDRESS || isFaultHost(host)) {
    const callback = args.flat().findLast((x) => typeof x === "function");
    return originalSocketConnect.call(this, { path: FAULT_ADDRESS }, ...(callback ? [callback] : []));
  }
  const error = ipcPath
    ? transportError("ECONNREFUSED", "connect", ipcPath)
    : isAddressLiteral(host)
      ? transportError("ECONNREFUSED", "connect", host, port)
      : transportError("ENOTFOUND", "getaddrinfo", host);
  process.nextTick(() => this.destroy(error));
  return this;
};

net.connect = guarded("net", net.connect);
net.createConnection = guarded("net", net.createConnection);
tls.connect = guarded("tls", tls.connect);
http.request = guarded("http", http.request);
http.get = guarded("http", http.get);
https.request = guarded("https", https.request);
https.get = guarded("https", https.get);

/** A fetch of the fault origin, through a real HTTP request to it: a real status, or undici's
 * TypeError("fetch failed") with the socket's error as its cause. */
async function fetchFaultOrigin(url, method) {
  await faultOriginReady;
  return new Promise((resolve, reject) => {
    guardDepth += 1;
    let request;
    try {
      request = originalHttpRequest(
        { socketPath: FAULT_ADDRESS, method, path: `${url.pathname}${url.search}`, headers: { host: FAULT_HOST } },
        (response) => {
          const chunks = [];
          response.on("data", (chunk) => chunks.push(chunk));
          response.on("error", (cause) => reject(new TypeError("fetch failed", { cause })));
          response.on("end", () => {
            const answer = new Response(Buffer.concat(chunks), {
              status: response.statusCode,
              statusText: response.statusMessage,
              headers: Object.entries(response.headers).filter(([, value]) => typeof value === "string"),
            });
            Object.defineProperty(answer, "url", { value: url.href });
            resolve(answer);
          });
        },
      );
    } finally {
      guardDepth -= 1;
    }
    request.on("error", (cause) => reject(new TypeError("fetch failed", { cause })));
    request.end();
  });
}

globalThis.fetch = async function fetch(input, init) {
  record("fetch");
  let host;
  let url;
  try {
    url = new URL(typeof input === "string" || input instanceof URL ? String(input) : input.url);
    host = url.host;
  } catch {
    host = undefined;
  }
  if (url && url.protocol === "http:" && isFaultHost(url.hostname)) {
    return fetchFaultOrigin(url, String(init?.method ?? input?.method ?? "GET").toUpperCase());
  }
  // Fail after a turn of the event loop, like a refused connection would.
  await new Promise((resolve) => setImmediate(resolve));
  const cause = transportError("ECONNREFUSED", "connect", host);
  throw new TypeError("fetch failed", { cause });
};

const DNS_METHODS = [
  "lookup", "lookupService", "resolve", "resolve4", "resolve6", "resolveAny", "resolveCaa", "resolveCname",
  "resolveMx", "resolveNaptr", "resolveNs", "resolvePtr", "resolveSoa", "resolveSrv", "resolveTxt", "reverse",
];

function dnsError(method, host) {
  const syscall = method === "lookup" ? "getaddrinfo" : method === "lookupService" ? "getnameinfo" : "query";
  return transportError("ENOTFOUND", syscall, typeof host === "string" ? host : undefined);
}

function patchDnsCallbacks(target) {
  for (const method of DNS_METHODS) {
    if (typeof target[method] !== "function") continue;
    target[method] = function blockedDns(host, ...rest) {
      record("dns");
      const callback = rest.reverse().find((x) => typeof x === "function");
      const error = dnsError(method, host);
      if (callback) process.nextTick(() => callback(error));
      return undefined;
    };
  }
}

function patchDnsPromises(target) {
  for (const method of DNS_METHODS) {
    if (typeof target[method] !== "function") continue;
    target[method] = async function blockedDnsPromise(host) {
      record("dns");
      await new Promise((resolve) => setImmediate(resolve));
      throw dnsError(method, host);
    };
  }
}

patchDnsCallbacks(dns);
if (dns.Resolver) patchDnsCallbacks(dns.Resolver.prototype);
patchDnsPromises(dns.promises);
if (dns.promises.Resolver) patchDnsPromises(dns.promises.Resolver.prototype);
// Named ESM imports (import { request } from "node:http") read a snapshot; refresh it.
syncBuiltinESMExports();

// ---------------------------------------------------------------------------------------------
// Module resolution: pi's modules as pi-runtime.mjs resolves them for the plugin (the real package
// where the plugin's folder has it, the kit's stand-in otherwise), the transport module to its shim.

const TRANSPORT_SHIMS = {
  esm: { "elowen-plugin-shared/transport": path.join(HERE, "plugin-shared-transport.mjs") },
  cjs: {
    "elowen-plugin-shared/transport": path.join(HERE, "plugin-shared-transport.cjs"),
    "elowen-plugin-shared/transport.mjs": path.join(HERE, "plugin-shared-transport.cjs"),
  },
};
let resolution = { aliases: {}, pi: null, problem: null };
let cjsAliases = { ...TRANSPORT_SHIMS.cjs };

const requireHere = createRequire(import.meta.url);
const CjsModule = requireHere("node:module");
const originalResolveFilename = CjsModule._resolveFilename;
// require() from a CommonJS plugin does not pass through the ESM hooks in Node 20.
CjsModule._resolveFilename = function resolveFilename(request, ...rest) {
  const shim = cjsAliases[request];
  return shim ?? originalResolveFilename.call(this, request, ...rest);
};
// The kit's stand-ins are ES modules, which require() loads only from Node 20.19 and 22.12 on: a
// require() of one, from a CommonJS plugin or through createRequire, gets the exports of the same
// module an import gets, loaded beforehand (installResolution), so every plugin sees every name of
// pi on every Node the kit supports.
let cjsStandIns = {};
const originalLoad = CjsModule._load;
CjsModule._load = function load(request, ...rest) {
  return cjsStandIns[request] ?? originalLoad.call(this, request, ...rest);
};

const hooksError =
  typeof nodeModule.registerHooks === "function" || typeof nodeModule.register === "function"
    ? null
    : `Node.js ${process.version} has no module.register(); the kit needs Node.js 20.6 or newer`;

async function installResolution(entry) {
  resolution = piResolution(entry);
  const standIn = resolution.pi === null;
  cjsAliases = { ...TRANSPORT_SHIMS.cjs, ...resolution.aliases };
  cjsStandIns = {};
  const urls = aliasUrls(resolution.aliases);
  const own = ownPrefixes(resolution);
  if (resolution.pi === null && resolution.aliases.typebox) {
    // The pi-ai stand-in re-exports TypeBox's Type as pi-ai does: the TypeBox the plugin resolves.
    try {
      globalThis[Symbol.for("toolconformance.typebox")] = await import(urls.typebox);
    } catch {
      // No usable TypeBox: pi-ai's Type stays the stand-in's, which says so when used.
    }
  }
  if (typeof nodeModule.registerHooks === "function") {
    const hooks = await import(pathToFileURL(path.join(HERE, "hooks.mjs")).href);
    hooks.setAliases(urls, own);
    nodeModule.registerHooks({ resolve: hooks.resolveSync });
  } else {
    nodeModule.register(pathToFileURL(path.join(HERE, "hooks.mjs")).href, { data: { aliases: urls, own } });
  }
  if (standIn) {
    for (const [name, target] of Object.entries(resolution.aliases)) {
      if (path.dirname(target) !== HERE || !target.endsWith(".mjs")) continue; // a real package: its own format
      const namespace = await import(urls[name]);
      cjsStandIns[name] = Object.freeze({ __esModule: true, ...namespace });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The plugin context.

const mirror = { access: null, identity: null, accountUserId: null };
// Rejects the register or call in flight when plugin code throws outside its own promise
// (a timer, an event handler), which would otherwise only surface as a timeout.
let strayError = null;
let currentId = null; // id of the request in progress
let loading = null; // {sync: bool, replay: bool} while register() of a load runs
const tools = []; // handle -> tool object
let ctxReplyBuffer = "";

function copy(value) {
  // A fresh copy per read, so a plugin that mutates what it got cannot change the mirror.
  return value === undefined || value === null ? null : structuredClone(value);
}

function readCtxReply() {
  // Blocking read on a pipe Node never touches: register() is synchronous JS at this point.
  const chunk = Buffer.alloc(65536);
  while (!ctxReplyBuffer.includes("\n")) {
    const n = fs.readSync(CTX_FD, chunk, 0, chunk.length, null);
    if (n === 0) throw new Error("the kit closed the host-call channel");
    ctxReplyBuffer += chunk.toString("utf8", 0, n);
  }
  const at = ctxReplyBuffer.indexOf("\n");
  const line = ctxReplyBuffer.slice(0, at);
  ctxReplyBuffer = ctxReplyBuffer.slice(at + 1);
  return JSON.parse(line);
}

function hostCall(method, args) {
  send({ op: "ctx", id: currentId, method, args });
  const reply = readCtxReply();
  if (reply.ok) return reply.value;
  const error = new Error(reply.error?.message ?? `host ${method} failed`);
  error.name = reply.error?.name ?? "Error";
  if (reply.error?.rule) error.rule = reply.error.rule;
  // Lets the Python side re-raise its own exception if the plugin lets it escape register().
  Object.defineProperty(error, "hostErrorToken", { value: reply.error?.token ?? null, enumerable: false });
  throw error;
}

function syncActive() {
  return loading !== null && loading.sync && CTX_FD !== null;
}

function readIdentityLike(method, key) {
  if (syncActive()) return hostCall(method, null);
  send({ op: "read", id: currentId, method });
  return copy(mirror[key]);
}

function log(level) {
  return (...args) => send({ op: "log", id: currentId, level, message: util.format(...args) });
}

function jsonOrNull(value) {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

function registerTool(tool, ...rest) {
  if (loading === null) {
    const name = tool && typeof tool === "object" ? tool.name : undefined;
    log("warning")(`registerTool(${JSON.stringify(name)}) called after register() finished; ignored by the kit`);
    return undefined;
  }
  const isObject = tool !== null && typeof tool === "object";
  const handle = tools.length;
  tools.push(isObject ? tool : null);
  const note = {
    handle,
    name: isObject ? tool.name ?? null : null,
    label: isObject ? tool.label ?? null : null,
    description: isObject ? tool.description ?? null : null,
    parameters: isObject ? jsonOrNull(tool.parameters) : null,
    hasExecute: isObject && typeof tool.execute === "function",
    toolType: isObject ? "object" : tool === null ? "null" : typeof tool,
  };
  if (rest.length > 0 && rest[0] !== undefined) {
    const options = rest[0];
    note.options = options !== null && typeof options === "object" ? jsonOrNull(options) : options;
  }
  if (syncActive()) return hostCall("registerTool", note);
  send({ op: "tool", id: currentId, ...note });
  return undefined;
}

const loggerApi = Object.freeze({
  info: log("info"),
  warn: log("warning"),
  warning: log("warning"),
  error: log("error"),
  debug: log("info"),
});

const ctxApi = Object.freeze({
  registerTool,
  logger: loggerApi,
  currentIdentity: () => readIdentityLike("currentIdentity", "identity"),
  currentAccess: () => readIdentityLike("currentAccess", "access"),
  currentAccountUserId: () => readIdentityLike("currentAccountUserId", "accountUserId"),
});

// The workspace the plugin's session runs in (pi's cwd); calls get their own.
let workspace = BASE_CWD;

function phase(name) {
  send({ op: "phase", id: currentId, phase: name });
}

// ---------------------------------------------------------------------------------------------
// Loading.

// How many instances of the plugin this process has imported: each load after the first is a fresh one.
let instances = 0;

async function importThroughJiti(entry, missingCode = "TOOLCONF_JITI_MISSING") {
  const requireFromPlugin = createRequire(path.join(path.dirname(entry), "__toolconformance__.js"));
  const found = jitiPath(requireFromPlugin, resolution.pi);
  if (found === null) {
    const error = new Error(`cannot resolve "jiti" from ${path.dirname(entry)}`);
    error.code = missingCode;
    throw error;
  }
  // jiti's ES module entry, as pi's loader imports it: its own imports (pi's dist) then load natively.
  const esm = found.replace(/\.cjs$/, ".mjs");
  const { createJiti } = fs.existsSync(esm) ? await import(pathToFileURL(esm).href) : requireFromPlugin(found);
  const jiti = createJiti(pathToFileURL(entry).href, {
    alias: { ...TRANSPORT_SHIMS.esm, ...resolution.aliases },
    // As pi's loader does: every import evaluates the extension's modules anew, so a fresh instance is
    // fresh all through (its own files and what jiti loads for it), while the packages Node imports
    // natively (pi, TypeBox) stay loaded.
    moduleCache: false,
    // Transpiled once into the process's own temporary folder (never the plugin's tree), so a fresh
    // instance costs an evaluation, not a transpilation.
    fsCache: path.join(os.tmpdir(), "toolconformance-jiti"),
    interopDefault: false,
  });
  return jiti.import(entry);
}

// Node's words for ES module syntax in a file its package types as CommonJS ("type": "commonjs", as
// `npm init -y` writes): thrown while compiling, before any of the file's code ran.
const ESM_IN_COMMONJS = /Cannot use import statement outside a module|Unexpected token 'export'/;

async function importEntry(entry, kind) {
  instances += 1;
  if (kind === "ts") return importThroughJiti(entry);
  // A native ES module is evaluated once per URL: a fresh instance gets a URL of its own (the modules
  // it imports stay shared; a TypeScript entry goes through jiti, which renews them too).
  const url = pathToFileURL(entry).href;
  try {
    return await import(instances === 1 ? url : `${url}?toolconformance-instance=${instances}`);
  } catch (error) {
    // pi imports every extension through jiti, which accepts ES module syntax in a .js file of a
    // CommonJS package; Node's own loader refuses it. Load it as pi does where jiti resolves.
    if (!(error instanceof SyntaxError) || !ESM_IN_COMMONJS.test(error.message) || !entry.endsWith(".js")) throw error;
    return importThroughJiti(entry, "TOOLCONF_ESM_IN_COMMONJS");
  }
}

function pickForm(mod) {
  if (mod && typeof mod.register === "function") return { form: "register", fn: mod.register, self: mod };
  let candidate = mod ? mod.default : undefined;
  // CommonJS and transpiled modules can wrap the real export in one or two "default" layers.
  for (let i = 0; i < 2 && candidate && typeof candidate === "object" && typeof candidate.register !== "function" && "default" in candidate; i += 1) {
    candidate = candidate.default;
  }
  if (candidate && typeof candidate === "object" && typeof candidate.register === "function") {
    return { form: "default-register", fn: candidate.register, self: candidate };
  }
  if (typeof candidate === "function") return { form: "pi-extension", fn: candidate, self: undefined };
  return null;
}

function describeError(error, phase) {
  if (error !== null && typeof error === "object") {
    return {
      name: typeof error.name === "string" ? error.name : error.constructor?.name ?? "Error",
      message: typeof error.message === "string" ? error.message : util.inspect(error, { depth: 2 }),
      stack: typeof error.stack === "string" ? error.stack : null,
      code: typeof error.code === "string" ? error.code : null,
      transport: error[TRANSPORT_TAG] === true,
      token: error.hostErrorToken ?? null,
      phase: phase ?? null,
    };
  }
  return {
    name: typeof error,
    message: typeof error === "string" ? error : util.inspect(error),
    stack: null,
    code: null,
    transport: false,
    token: null,
    phase: phase ?? null,
  };
}

async function doLoad(request) {
  if (hooksError) return { ok: false, error: { ...describeError(new Error(hooksError), "node-version") } };
  Object.assign(mirror, {
    access: request.mirror?.access ?? null,
    identity: request.mirror?.identity ?? null,
    accountUserId: request.mirror?.accountUserId ?? null,
  });
  if (request.workspace) {
    workspace = request.workspace;
    // pi's getAgentDir(): inside the workspace, never the user's own ~/.pi.
    process.env.PI_CODING_AGENT_DIR = path.join(workspace, ".pi-agent");
  }
  try {
    await installResolution(request.entry);
  } catch (error) {
    return { ok: false, error: describeError(error, "import") };
  }
  if (resolution.problem !== null) {
    const error = new Error(resolution.problem);
    error.name = "NodeTooOld";
    return { ok: false, error: describeError(error, "node-version") };
  }
  // The kit's own set-up, before the plugin's clock starts: pi's runtime (the real package the plugin
  // resolves, or the stand-in) is what every startup event and call builds its context from, and
  // importing it takes seconds on a busy machine. Its time is never the plugin's.
  phase("kit");
  openclawMode = Boolean(request.openclaw);
  try {
    // An OpenClaw plugin's calls get no pi session: OpenClaw's loop passes none.
    if (!openclawMode) await warmSession();
  } catch {
    // A pi that cannot build a session fails where the plugin's code needs one, as it did before.
  }
  let mod;
  phase("import");
  try {
    mod = await importEntry(request.entry, request.kind);
  } catch (error) {
    const phase = { TOOLCONF_JITI_MISSING: "jiti-missing", TOOLCONF_ESM_IN_COMMONJS: "esm-in-commonjs" }[error?.code] ?? "import";
    return { ok: false, error: describeError(error, phase) };
  }
  const picked = openclawMode ? resolveOpenClawExport(mod) : pickForm(mod);
  if (picked === null) {
    const names = mod ? Object.keys(mod) : [];
    const error = new Error(`exports found: ${names.length ? names.join(", ") : "none"}`);
    error.name = "NotAPlugin";
    return { ok: false, error: describeError(error, "not-a-plugin") };
  }
  if (request.fresh) {
    // A fresh instance replaces the old one: its registrations take the same handles, in order.
    tools.length = 0;
  }
  loading = { sync: !request.replay, replay: Boolean(request.replay) };
  const openclaw = openclawMode
    ? createOpenClawApi({ registerTool, log, manifest: request.openclaw.manifest, workspace, context: { ...request.openclaw.context, workspace } })
    : null;
  const pi = picked.form === "pi-extension" && openclaw === null ? createPiApi({ registerTool, log, extras: ctxApi, execCwd: () => process.cwd() }) : null;
  piExtension = pi;
  try {
    const stray = new Promise((_, reject) => {
      strayError = reject;
    });
    phase("register");
    await Promise.race([
      Promise.resolve().then(() =>
        openclaw !== null
          ? openclaw.finish(picked.fn.call(picked.self, openclaw.api)) // OpenClaw awaits nothing of register
          : picked.fn.call(picked.self, pi !== null ? pi.api : ctxApi),
      ),
      stray,
    ]);
  } catch (error) {
    return { ok: false, error: describeError(error, "register") };
  }
  try {
    if (pi !== null) {
      // What pi runs before it offers the first tool; tools registered there count like the rest.
      pi.bind();
      phase("startup");
      const stray = new Promise((_, reject) => {
        strayError = reject;
      });
      await Promise.race([
        runStartup(pi.extension, () => toolContext(workspace, new AbortController().signal, false, []), workspace, (event, error) =>
          log("error")(`the extension's ${event} handler threw ${error?.name ?? "Error"}: ${error?.message ?? error}`),
        ),
        stray,
      ]);
    }
  } catch (error) {
    return { ok: false, error: describeError(error, "startup") };
  } finally {
    loading = null;
    strayError = null;
  }
  return {
    ok: true,
    form: picked.form,
    tools: tools.map((tool, handle) => ({ handle, name: tool ? tool.name ?? null : null })),
  };
}

// ---------------------------------------------------------------------------------------------
// Calls.

let openclawMode = false; // the plugin was loaded as an OpenClaw plugin (the load request's "openclaw")
let piExtension = null; // the pi ExtensionAPI of a pi-extension form, kept for the process's life

let warmed = null;

function warmSession() {
  warmed ??= inMemorySession(resolution, workspace);
  return warmed;
}

// Each call (and pi's startup) gets its own empty in-memory session, as a fresh pi session would.
async function toolContext(cwd, signal, busy, events) {
  const sessionManager = await inMemorySession(resolution, cwd);
  return createContext({ cwd, signal, sessionManager, events, extras: ctxApi, busy });
}

function resultJson(result, toolName) {
  const replacer = function replacer(key, value) {
    const kind = typeof value;
    let bad = null;
    if (kind === "function" || kind === "symbol" || kind === "bigint") bad = kind;
    else if (kind === "number" && !Number.isFinite(value)) bad = String(value);
    else if (value instanceof Map || value instanceof Set) bad = value.constructor.name;
    if (bad !== null) {
      throw new TypeError(`${key === "" ? "the result" : `key ${JSON.stringify(key)}`} holds a ${bad}`);
    }
    return value;
  };
  try {
    return JSON.stringify(result === undefined ? null : result, replacer);
  } catch (error) {
    const wrapped = new TypeError(
      `tool ${JSON.stringify(toolName)} returned a result that is not JSON-serializable: ${error.message}`,
    );
    wrapped.name = "ResultNotSerializable";
    throw wrapped;
  }
}

async function doCall(request) {
  Object.assign(mirror, {
    access: request.access ?? null,
    identity: request.identity ?? null,
    accountUserId: request.accountUserId ?? null,
  });
  const tool = typeof request.handle === "number" ? tools[request.handle] : tools.find((t) => t && t.name === request.tool);
  if (!tool || (request.tool !== undefined && tool.name !== request.tool)) {
    const error = new Error(`the plugin registered no tool ${JSON.stringify(request.tool)} (handle ${request.handle})`);
    error.name = "UnknownTool";
    return { ok: false, error: describeError(error) };
  }
  if (typeof tool.execute !== "function") {
    return { ok: false, error: describeError(new TypeError(`tool ${JSON.stringify(tool.name)} has no execute function`)) };
  }
  if (request.cwd) {
    try {
      process.chdir(request.cwd);
    } catch (error) {
      return { ok: false, error: describeError(error, "cwd") };
    }
  }
  const controller = new AbortController();
  const events = [];
  const toolCtx = openclawMode ? undefined : await toolContext(process.cwd(), controller.signal, true, events);
  try {
    const stray = new Promise((_, reject) => {
      strayError = reject;
    });
    const result = await Promise.race([
      Promise.resolve().then(() =>
        tool.execute(request.callId, request.params, controller.signal, () => undefined, toolCtx),
      ),
      stray,
    ]);
    return { ok: true, resultJson: resultJson(result, tool.name) };
  } catch (error) {
    return { ok: false, error: describeError(error) };
  } finally {
    for (const event of events) log("info")(`tool ${JSON.stringify(tool.name)} called ctx.${event}()`);
    strayError = null;
    if (request.cwd) {
      try {
        process.chdir(BASE_CWD);
      } catch {
        // The base directory vanished; later calls run wherever the last one left off.
      }
    }
  }
}

function reportStray(kind) {
  return (error) => {
    diag(`${kind} from plugin code:`, error);
    if (strayError) strayError(error);
  };
}
process.on("uncaughtException", reportStray("uncaught exception"));
process.on("unhandledRejection", reportStray("unhandled rejection"));

// ---------------------------------------------------------------------------------------------
// Request loop.

async function handle(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    diag("unreadable request line:", error.message);
    return;
  }
  const { id, op } = request;
  currentId = id;
  touched = new Set();
  let answer;
  try {
    if (op === "load") answer = await doLoad(request);
    else if (op === "call") answer = await doCall(request);
    else if (op === "mirror") {
      Object.assign(mirror, {
        access: request.access ?? null,
        identity: request.identity ?? null,
        accountUserId: request.accountUserId ?? null,
      });
      answer = { ok: true };
    } else if (op === "ping") answer = { ok: true, pid: process.pid, node: process.version };
    else answer = { ok: false, error: describeError(new Error(`unknown op ${JSON.stringify(op)}`)) };
  } catch (error) {
    answer = { ok: false, error: describeError(error, "bridge") };
  }
  const network = [...touched];
  currentId = null;
  if (answer.resultJson !== undefined) {
    // The result is already serialized (and checked); splice it in rather than parse it again.
    protocolWrite(`${MARK}{"id":${JSON.stringify(id)},"ok":true,"network":${JSON.stringify(network)},"result":${answer.resultJson}}\n`);
  } else {
    send({ id, ...answer, network });
  }
}

const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on("line", (line) => {
  handle(line);
});
// The Python side closed stdin (close() or its own exit): leave quietly.
input.on("close", () => process.exit(0));

send({ op: "ready", pid: process.pid, node: process.version });
