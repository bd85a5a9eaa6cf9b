// The wire protocol for a host written in JavaScript or TypeScript (docs/wire-protocol.md): JSON
// lines on stdin and stdout, the handshake, seq handling, parameter checks and the error answers.
// A host adapter hands serve() its own operations, one async function per contract method it
// serves, and declares the capabilities they cover; everything else is answered here.
//
// The vocabulary is read from the wire schemas shipped beside this file (../wire/schemas/), never
// copied: the methods are the schema files, their required params come from `$defs.params`, the
// error kinds from common.json, and the protocol version from the schemas' `$id`s.

import { readdirSync, readFileSync } from "node:fs";
import { Console } from "node:console";
import { createInterface } from "node:readline";

const SCHEMAS = new URL("../wire/schemas/", import.meta.url);

function readSchema(file) {
  return JSON.parse(readFileSync(new URL(file, SCHEMAS), "utf8"));
}

const COMMON = readSchema("common.json");

/** The protocol version, from the schemas' `$id` (".../wire/<version>/common.json"). */
export const PROTOCOL_VERSION = Number(/\/wire\/(\d+)\//.exec(COMMON.$id)[1]);

/** Every method of the protocol -> the names of its required params. */
export const METHODS = Object.freeze(
  Object.fromEntries(
    readdirSync(SCHEMAS)
      .filter((file) => file.endsWith(".json") && file !== "common.json")
      .sort()
      .map((file) => [file.slice(0, -".json".length), Object.freeze(readSchema(file).$defs?.params?.required ?? [])]),
  ),
);

/** Methods the framing answers itself; a host serves every other method it declares. */
export const FRAMING_METHODS = Object.freeze(["hello", "reset", "stop"]);

const ALL_KINDS = COMMON.$defs.error.properties.kind.enum;
/** Error kinds that are a protocol fault (answered by the framing, never by an adapter's refusal). */
export const WIRE_ERROR_KINDS = Object.freeze(["bad-request", "internal"]);
/** Error kinds a contract method refuses input with: handed to the check as {"error": ...}. */
export const CONTRACT_ERROR_KINDS = Object.freeze(ALL_KINDS.filter((k) => !WIRE_ERROR_KINDS.includes(k)));

/** A contract refusal of input, thrown by an operation (or returned by error()). */
export class Refusal extends Error {
  constructor(kind, message, { rule = null, subject = null } = {}) {
    super(message);
    if (!CONTRACT_ERROR_KINDS.includes(kind)) {
      throw new TypeError(`refusal kind ${JSON.stringify(kind)} is not one of ${CONTRACT_ERROR_KINDS.join(", ")}`);
    }
    this.name = "Refusal";
    this.kind = kind;
    this.rule = rule;
    this.subject = subject;
  }
}

/** The structured error an operation returns for input it refuses (like the Python contract's error()). */
export function error(kind, message, { rule = null, subject = null } = {}) {
  const refusal = new Refusal(kind, message, { rule, subject });
  return { error: { kind: refusal.kind, message, rule, subject } };
}

class BadRequest extends Error {}

/** How long plugin code may run in one step: well inside the kit's wait for an answer, so a hanging
 * handler is reported by the host as a timed-out call rather than by the kit killing the host. */
export function pluginTimeBound(kitTimeout) {
  if (typeof kitTimeout !== "number" || !(kitTimeout > 0)) return 10;
  return Math.max(0.05, Math.min(10, kitTimeout * 0.4));
}

/**
 * Serve the protocol until `stop` or end of input, then exit with status 0.
 *
 * host: {name, version, capabilities: [...], collisions?: "first-wins" | "last-wins",
 *        operations: {method: async (params, session) => result},
 *        hello?: async (params) => void, reset?: async () => void, stop?: async () => void}
 * An operation returns its result (undefined answers {}), returns error(...) or throws a Refusal for
 * input it refuses; any other throw is answered as kind "internal" and logged to stderr. `session`
 * is {timeout, pluginTimeBound} from the hello.
 */
export function serve(host, { input = process.stdin, output = process.stdout, exit = (code) => process.exit(code) } = {}) {
  for (const method of Object.keys(host.operations ?? {})) {
    if (!(method in METHODS)) throw new TypeError(`${host.name}: operation ${method} is not a method of wire protocol ${PROTOCOL_VERSION}`);
    if (FRAMING_METHODS.includes(method)) throw new TypeError(`${host.name}: ${method} is answered by the framing; give it as host.${method}`);
  }
  // stdout carries protocol lines only: keep it, and send everything else written to it (a plugin's
  // console.log, a stray print) to stderr, where the kit shows it with any fault.
  const write = output.write.bind(output);
  if (output === process.stdout) {
    process.stdout.write = process.stderr.write.bind(process.stderr);
    // Bun's console writes to the descriptor itself, past process.stdout.write: every console method
    // writes to stderr here, in Node.js and Bun alike (the same console object, so modules that kept a
    // reference to it are covered too).
    const toStderr = new Console({ stdout: process.stderr, stderr: process.stderr });
    for (const name of Object.keys(Object.getPrototypeOf(toStderr)).concat(Object.keys(toStderr))) {
      if (typeof toStderr[name] === "function") console[name] = toStderr[name].bind(toStderr);
    }
  }
  process.on("uncaughtException", (err) => process.stderr.write(`${host.name}: uncaught: ${err?.stack ?? err}\n`));
  process.on("unhandledRejection", (err) => process.stderr.write(`${host.name}: unhandled rejection: ${err?.stack ?? err}\n`));

  // JSON allows U+2028 and U+2029 raw, but some readers (Bun's readline, Python's splitlines) end a
  // line at them: written escaped, one answer is always one line.
  const send = (message) => write(`${JSON.stringify(message).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029")}\n`);
  const answerError = (seq, kind, message, rule = null, subject = null) => send({ seq, error: { kind, message, rule, subject } });
  let session = null;
  let stopping = false;

  async function finish() {
    if (stopping) return;
    stopping = true;
    try {
      await host.stop?.();
    } catch (err) {
      process.stderr.write(`${host.name}: stop failed: ${err?.stack ?? err}\n`);
    }
    write("", () => exit(0));
  }

  async function handle(line) {
    let request;
    try {
      request = JSON.parse(line);
    } catch (err) {
      answerError(null, "bad-request", `not JSON: ${err.message}`);
      return;
    }
    const seq = request?.seq;
    if (request === null || typeof request !== "object" || !Number.isInteger(seq) || typeof request.method !== "string") {
      answerError(Number.isInteger(seq) ? seq : null, "bad-request", 'a request is an object with an integer "seq" and a string "method"');
      return;
    }
    const { method } = request;
    const params = request.params ?? {};
    try {
      if (params === null || typeof params !== "object" || Array.isArray(params)) throw new BadRequest("params must be an object");
      if (!(method in METHODS)) throw new BadRequest(`unknown method ${JSON.stringify(method)}`);
      for (const name of METHODS[method]) if (!(name in params)) throw new BadRequest(`${method}: params.${name} is missing`);
      if (method === "hello") {
        if (!Number.isInteger(params.protocol) || params.protocol < PROTOCOL_VERSION) {
          throw new BadRequest(`this host speaks protocol ${PROTOCOL_VERSION}; the kit offered ${JSON.stringify(params.protocol)}`);
        }
        session = { timeout: params.timeout ?? null, pluginTimeBound: pluginTimeBound(params.timeout) };
        await host.hello?.(params, session);
        const hello = { name: host.name, version: host.version, protocol: PROTOCOL_VERSION, capabilities: [...host.capabilities] };
        // How the host settles two plugins registering one name (EXT-3), where it says.
        if (host.collisions) hello.collisions = host.collisions;
        send({ seq, result: hello });
        return;
      }
      if (method === "stop") {
        send({ seq, result: {} });
        await finish();
        return;
      }
      if (session === null) throw new BadRequest(`${method} before hello: the first request is the hello`);
      if (method === "reset") {
        await host.reset?.(session);
        send({ seq, result: {} });
        return;
      }
      const operation = host.operations?.[method];
      if (!operation) throw new BadRequest(`${host.name} does not serve ${method} (it is not covered by a declared capability)`);
      const answer = await operation(params, session);
      if (answer && typeof answer === "object" && "error" in answer) {
        const { kind, message, rule = null, subject = null } = answer.error;
        if (!CONTRACT_ERROR_KINDS.includes(kind)) throw new TypeError(`${method} returned an error of kind ${JSON.stringify(kind)}`);
        answerError(seq, kind, String(message), rule, subject);
      } else {
        send({ seq, result: answer ?? {} });
      }
    } catch (err) {
      if (err instanceof BadRequest) answerError(seq, "bad-request", err.message);
      else if (err instanceof Refusal) answerError(seq, err.kind, err.message, err.rule, err.subject);
      else {
        process.stderr.write(`${host.name}: ${method} failed: ${err?.stack ?? err}\n`);
        answerError(seq, "internal", `${method}: ${err?.name ?? "Error"}: ${err?.message ?? err}`);
      }
    }
  }

  // Strictly one request at a time, answered in order.
  let queue = Promise.resolve();
  const lines = createInterface({ input, crlfDelay: Infinity });
  lines.on("line", (line) => {
    if (!line.trim() || stopping) return;
    queue = queue.then(() => handle(line));
  });
  lines.on("close", () => {
    queue = queue.then(finish);
  });
}
