// CommonJS twin of pi-coding-agent.mjs, for plugins that require() the host module.
"use strict";

function defineTool(tool) {
  if (tool === null || typeof tool !== "object" || Array.isArray(tool)) {
    throw new TypeError(
      `defineTool() takes a tool object {name, label, description, parameters, execute}, got ${
        tool === null ? "null" : Array.isArray(tool) ? "an array" : typeof tool
      }`,
    );
  }
  return tool;
}

module.exports = { defineTool };
