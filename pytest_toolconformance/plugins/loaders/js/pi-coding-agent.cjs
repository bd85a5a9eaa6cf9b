// CommonJS twin of pi-coding-agent.mjs, for plugins that require() the host module where the real
// package is not resolvable (Node 20 cannot require() the ES module itself). defineTool is real; any
// other name answers a function that says, when called, to install the real package.
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

module.exports = new Proxy(
  { defineTool, VERSION: "1.6.0", CONFIG_DIR_NAME: ".pi", DEFAULT_MAX_BYTES: 50 * 1024, DEFAULT_MAX_LINES: 2000 },
  {
    get(target, property) {
      if (property in target || typeof property === "symbol" || property === "then" || property === "__esModule") {
        return target[property];
      }
      return () => {
        throw new Error(
          `${String(property)} of @earendil-works/pi-coding-agent is not in the kit's CommonJS stand-in; import the ` +
            "module as ESM, or install the real package where the plugin resolves it",
        );
      };
    },
  },
);
