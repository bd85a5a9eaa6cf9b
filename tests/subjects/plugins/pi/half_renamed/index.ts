// Verdict: NAME-5 fails. The schema was renamed to file_path but execute still reads filePath and
// refuses file_path as unknown, so no valid call ever succeeds (the seed: "Renaming a parameter
// changes the live schema and every caller together"), lines 14 and 16.
import { Type } from "typebox";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }], details: {} });

export default function (pi: ExtensionAPI) {
  pi.registerTool({
    name: "count_lines",
    label: "Count lines",
    description: "Counts the lines of a file.",
    parameters: Type.Object({ file_path: Type.String({ description: "The file to count" }) }),
    async execute(_id, params: any) {
      const unknown = Object.keys(params ?? {}).filter((k) => k !== "filePath");
      if (unknown.length) return text(`unknown parameter ${unknown[0]}; expected filePath`);
      return text(typeof params.filePath === "string" ? "1 line" : "filePath must be a string");
    },
  });
}
