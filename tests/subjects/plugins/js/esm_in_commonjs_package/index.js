// A pi extension written as an ES module in the package `npm init -y` makes ("type": "commonjs"):
// Node's own loader refuses its import statement; pi imports it through jiti, which accepts it.
import { Type } from "typebox";

export default function (pi) {
  pi.registerTool({
    name: "echo_text",
    label: "Echo",
    description: "Returns the supplied text.",
    parameters: Type.Object({ value: Type.String({ description: "Text to return." }) }),
    async execute(_id, params) {
      const text = typeof params.value === "string" ? params.value : "value must be a string";
      return { content: [{ type: "text", text }], details: {} };
    },
  });
}
