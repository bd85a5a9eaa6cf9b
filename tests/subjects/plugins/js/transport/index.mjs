// Tools that reach for the network (there is none under the kit) and handle the failure.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { isTransportFailure, markTransportFailure } from "elowen-plugin-shared/transport";
import { Type } from "typebox";
import net from "node:net";
import { request } from "node:https";
import dns from "node:dns";
import { lookup } from "node:dns/promises";

const text = (value, details = {}) => ({ content: [{ type: "text", text: value }], details });

function outcome(emitter) {
  return new Promise((resolve) => {
    emitter.on("error", (error) => resolve({ code: error.code, message: error.message }));
    emitter.on("connect", () => resolve({ code: "CONNECTED" }));
  });
}

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "FetchRethrow",
    label: "Fetch (conforming)",
    description: "Fetches a page; a transport failure is tagged and thrown (ERR-3, ERR-4).",
    parameters: Type.Object({}),
    execute: async () => {
      try {
        const response = await fetch("https://example.com");
        return text(await response.text());
      } catch (error) {
        if (isTransportFailure(error)) throw error;
        throw markTransportFailure(error);
      }
    },
  }));
  ctx.registerTool(defineTool({
    name: "FetchSwallow",
    label: "Fetch (flattening)",
    description: "Fetches a page and flattens any failure into a text answer (breaks ERR-3).",
    parameters: Type.Object({}),
    execute: async () => {
      try {
        await fetch("https://example.com");
        return text("fetched");
      } catch (error) {
        return text(`could not fetch: ${error.message} (${error.cause?.code})`);
      }
    },
  }));
  ctx.registerTool(defineTool({
    name: "NetProbe",
    label: "Net probe",
    description: "Opens raw sockets and reports what happened.",
    parameters: Type.Object({}),
    execute: async () => {
      const byName = await outcome(net.connect(443, "example.com"));
      const byAddress = await outcome(net.createConnection({ host: "127.0.0.1", port: 9 }));
      return text("net", { byName, byAddress });
    },
  }));
  ctx.registerTool(defineTool({
    name: "HttpProbe",
    label: "HTTP probe",
    description: "Sends an HTTPS request through a named ESM import.",
    parameters: Type.Object({}),
    execute: async () => {
      const req = request("https://example.com/");
      const result = outcome(req);
      req.end();
      return text("https", await result);
    },
  }));
  ctx.registerTool(defineTool({
    name: "DnsProbe",
    label: "DNS probe",
    description: "Resolves a name with callbacks and promises.",
    parameters: Type.Object({}),
    execute: async () => {
      const viaCallback = await new Promise((resolve) => dns.lookup("example.com", (error) => resolve(error?.code)));
      const viaPromise = await lookup("example.com").then(() => "resolved", (error) => error.code);
      return text("dns", { viaCallback, viaPromise });
    },
  }));
}
