// Verdict: named "root-union" (its package), not "src". SCHEMA-1 fails, named as a root anyOf (the
// seed: "Advertise one flat object without root combinators"), line 12; NAME-1 fails: the file it
// shares is named `path` (the seed: "Use file_path for a tool's primary single-file target"), line 12.
import { Type } from "typebox";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.registerTool({
    name: "share_file",
    label: "Share file",
    description: "Shares a file, or the latest one.",
    parameters: Type.Union([Type.Object({ path: Type.String({ description: "The file to share" }) }), Type.Object({ latest: Type.Boolean() })]),
    async execute() {
      return { content: [{ type: "text", text: "shared" }], details: {} };
    },
  });
}
