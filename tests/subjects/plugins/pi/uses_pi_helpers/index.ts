// Verdict: loads (every pi helper it imports exists); NAME-1 fails: its read override names the
// file it reads `path` (the seed: "Use file_path for a tool's primary single-file target"), line 16.
// SCHEMA-4 fails: it declares pi's offset and limit but never reads them, so a limit that is not a
// number is answered exactly as the call without it (the seed: "Validate data from external systems
// again inside the handler"), line 16.
import { createReadTool, formatSize, getAgentDir, truncateHead, type ExtensionAPI } from "@mariozechner/pi-coding-agent";
import * as fs from "node:fs";
import * as path from "node:path";

export default function (pi: ExtensionAPI) {
  const builtIn = createReadTool(process.cwd());
  const agentDir = getAgentDir();
  pi.registerTool({
    name: "read",
    label: builtIn.label,
    description: `${builtIn.description} (settings in ${path.basename(agentDir)})`,
    parameters: builtIn.parameters,
    async execute(_id, params: any, _signal, _onUpdate, ctx) {
      if (typeof params?.path !== "string") return { content: [{ type: "text", text: "Error: path must be a string" }], details: {} };
      const target = path.resolve(ctx.cwd, params.path);
      if (!fs.existsSync(target)) return { content: [{ type: "text", text: `Error: file not found: ${params.path}` }], details: {} };
      const text = fs.readFileSync(target, "utf8");
      const head = truncateHead(text);
      return { content: [{ type: "text", text: head.content }], details: { size: formatSize(Buffer.byteLength(text)) } };
    },
  });
}
