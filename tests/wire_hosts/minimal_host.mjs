// A second implementation of the wire framing, in Node.js (docs/wire-protocol.md): the handshake,
// reset and stop, and nothing else. It declares no capabilities, so the kit never sends it another
// method and every capability-gated check skips with the capability named.
import { createInterface } from "node:readline";

const NAME = "minimal-node-host";
const PROTOCOL = 1;

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function refuse(seq, kind, message) {
  send({ seq, error: { kind, message, rule: null, subject: null } });
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
let greeted = false;

lines.on("line", (line) => {
  if (!line.trim()) return;
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    refuse(null, "bad-request", `not JSON: ${error.message}`);
    return;
  }
  const { seq, method, params = {} } = request ?? {};
  if (!Number.isInteger(seq) || typeof method !== "string") {
    refuse(Number.isInteger(seq) ? seq : null, "bad-request", 'a request has an integer "seq" and a string "method"');
    return;
  }
  switch (method) {
    case "hello":
      if (!Number.isInteger(params.protocol) || params.protocol < PROTOCOL) {
        refuse(seq, "bad-request", `this host speaks protocol ${PROTOCOL}`);
        return;
      }
      greeted = true;
      send({ seq, result: { name: NAME, version: "0.0.1", protocol: PROTOCOL, capabilities: [] } });
      return;
    case "reset":
      if (!greeted) {
        refuse(seq, "bad-request", "reset before hello");
        return;
      }
      send({ seq, result: {} });
      return;
    case "stop":
      send({ seq, result: {} });
      lines.close();
      process.stdout.end(() => process.exit(0));
      return;
    default:
      // Never sent by a kit that honours the declared capabilities.
      refuse(seq, "bad-request", `${NAME} does not serve ${method}`);
  }
});

lines.on("close", () => process.exit(0));
