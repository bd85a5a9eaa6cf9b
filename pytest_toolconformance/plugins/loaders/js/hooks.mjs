// Module customization hooks: pi's module names (and TypeBox under both of its names) go where
// pi-runtime.mjs resolved them for this plugin; the kit's transport shim stands in for
// elowen-plugin-shared/transport. Every other specifier resolves normally from the importing file.

const TRANSPORT = new URL("./plugin-shared-transport.mjs", import.meta.url).href;
let aliases = new Map([
  ["elowen-plugin-shared/transport", TRANSPORT],
  ["elowen-plugin-shared/transport.mjs", TRANSPORT],
]);

// The real packages' own files resolve their imports as they were built to (pi's own import of
// "@earendil-works/pi-ai" is pi-ai, not the extension view pi gives extensions), as in pi, where
// only the extension goes through the aliasing loader.
let own = [];

/** Set the alias map (specifier -> file URL) and the URL prefixes of the real packages' own files. */
export function setAliases(urls, protectedPrefixes = []) {
  aliases = new Map([...aliases, ...Object.entries(urls ?? {})]);
  own = [...protectedPrefixes];
}

function aliasFor(specifier, context) {
  const url = aliases.get(specifier);
  if (url === undefined) return undefined;
  const parent = context?.parentURL ?? "";
  return own.some((prefix) => parent.startsWith(prefix)) ? undefined : url;
}

// module.register(url, {data}) hands the map to the off-thread hooks (Node 20.6+).
export async function initialize(data) {
  setAliases(data?.aliases, data?.own);
}

export async function resolve(specifier, context, nextResolve) {
  const url = aliasFor(specifier, context);
  if (url !== undefined) return { url, shortCircuit: true };
  return nextResolve(specifier, context);
}

// Synchronous form, for module.registerHooks() (in-thread hooks, Node 22.15+ / 23.5+), which
// avoids the per-import thread hop that makes off-thread hooks slow on large dependency trees.
export function resolveSync(specifier, context, nextResolve) {
  const url = aliasFor(specifier, context);
  if (url !== undefined) return { url, shortCircuit: true };
  return nextResolve(specifier, context);
}
