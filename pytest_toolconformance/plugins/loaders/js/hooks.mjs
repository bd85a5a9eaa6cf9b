// Module customization hooks (registered by bridge.mjs through module.register()).
// Only the two host modules are redirected to the kit's shims; every other specifier
// (typebox, the plugin's own dependencies) resolves normally from the importing file.

const SHIMS = new Map([
  ["@earendil-works/pi-coding-agent", new URL("./pi-coding-agent.mjs", import.meta.url).href],
  ["elowen-plugin-shared/transport", new URL("./plugin-shared-transport.mjs", import.meta.url).href],
  ["elowen-plugin-shared/transport.mjs", new URL("./plugin-shared-transport.mjs", import.meta.url).href],
]);

// Asynchronous form, for module.register() (off-thread hooks, Node 20.6+).
export async function resolve(specifier, context, nextResolve) {
  const url = SHIMS.get(specifier);
  if (url !== undefined) {
    return { url, format: "module", shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

// Synchronous form, for module.registerHooks() (in-thread hooks, Node 22.15+ / 23.5+), which
// avoids the per-import thread hop that makes off-thread hooks slow on large dependency trees.
export function resolveSync(specifier, context, nextResolve) {
  const url = SHIMS.get(specifier);
  if (url !== undefined) {
    return { url, format: "module", shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
