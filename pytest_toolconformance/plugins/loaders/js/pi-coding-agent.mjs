// Kit shim for "@earendil-works/pi-coding-agent": only what a tool plugin needs from PI.
// The host's defineTool is an identity function for typing; the kit adds a shape check so a
// plugin that passes something odd fails at its own line, not deep inside the bridge.

export function defineTool(tool) {
  if (tool === null || typeof tool !== "object" || Array.isArray(tool)) {
    throw new TypeError(
      `defineTool() takes a tool object {name, label, description, parameters, execute}, got ${
        tool === null ? "null" : Array.isArray(tool) ? "an array" : typeof tool
      }`,
    );
  }
  return tool;
}
