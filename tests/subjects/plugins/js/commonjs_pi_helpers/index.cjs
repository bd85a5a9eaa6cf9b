// A pi extension written as CommonJS, with no pi package where it lives (pi provides the module
// when it loads the extension): it require()s pi's helpers, as CommonJS extensions do. The kit's
// stand-in must give a require() every name its ESM twin gives an import.
"use strict";

const { defineTool, truncateHead, formatSize } = require("@earendil-works/pi-coding-agent");
const { StringEnum } = require("@earendil-works/pi-ai");
const { Type } = require("typebox");

const text = (value) => ({ content: [{ type: "text", text: value }], details: {} });

module.exports = function extension(pi) {
  pi.registerTool(defineTool({
    name: "head_of",
    label: "Head of text",
    description: "Returns the first lines of a text, and its size.",
    parameters: Type.Object({
      text: Type.String({ description: "The text to cut." }),
      unit: Type.Optional(StringEnum(["lines", "bytes"], { description: "What the limit counts." })),
    }),
    async execute(_callId, params) {
      for (const name of Object.keys(params)) {
        if (name !== "text" && name !== "unit") return text(`unknown parameter ${name}; expected text and unit`);
      }
      if (typeof params.text !== "string") return text("text must be a string");
      if (params.unit !== undefined && params.unit !== "lines" && params.unit !== "bytes") {
        return text("unit must be lines or bytes");
      }
      const cut = truncateHead(params.text, params.unit === "bytes" ? { maxBytes: 64 } : { maxLines: 3 });
      return text(`${cut.content} (${formatSize(Buffer.byteLength(params.text))})`);
    },
  }));
};
