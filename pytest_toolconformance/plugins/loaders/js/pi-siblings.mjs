// What the kit's stand-ins for pi's sibling packages (pi-tui, pi-ai, pi-agent-core) do, used only
// where the plugin's folder resolves neither the real pi nor the sibling itself. The stand-in
// modules (pi-tui.mjs, pi-ai.mjs, pi-agent-core.mjs) export every name of the 1.6.0 packages; the
// names a tool plugin uses while it registers or runs are implemented here after pi's own source,
// the rest construct (a component a renderer builds never renders without a UI) and say, when used,
// to install the real package.

import { randomUUID } from "node:crypto";

export function notEmulated(pkg, name) {
  return new Error(
    `${name} of @earendil-works/${pkg} needs pi's application, which the conformance kit's stand-in does not ` +
      `run; install the real package where the plugin resolves it (npm install @earendil-works/${pkg})`,
  );
}

export function standInClass(pkg, name) {
  return {
    [name]: class {
      constructor(...args) {
        this.args = args;
        this.children = [];
      }
      addChild(child) {
        this.children.push(child);
      }
      removeChild(child) {
        this.children = this.children.filter((c) => c !== child);
      }
      clear() {
        this.children = [];
      }
      setText(text) {
        this.args[0] = text;
      }
      invalidate() {}
      render() {
        return typeof this.args[0] === "string" ? String(this.args[0]).split("\n") : [];
      }
      static [Symbol.hasInstance](value) {
        return value !== null && typeof value === "object" && value.constructor?.name === name;
      }
    },
  }[name];
}

export function standInFunction(pkg, name) {
  return {
    [name]: () => {
      throw notEmulated(pkg, `${name}()`);
    },
  }[name];
}

// pi-tui: text measurement and keys, as a terminal of fixed-width characters.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
export const visibleWidth = (text) => [...String(text ?? "").replace(ANSI, "")].length;
export function truncateToWidth(text, width, ellipsis = "...") {
  const plain = String(text ?? "");
  if (visibleWidth(plain) <= width) return plain;
  return [...plain.replace(ANSI, "")].slice(0, Math.max(0, width - ellipsis.length)).join("") + ellipsis;
}
export const wrapTextWithAnsi = (text, width) => {
  const out = [];
  for (const line of String(text ?? "").split("\n")) {
    for (let i = 0; i < Math.max(1, line.length); i += Math.max(1, width)) out.push(line.slice(i, i + width));
  }
  return out;
};
export const matchesKey = () => false;
export const parseKey = () => undefined;
export const isKeyRelease = () => false;
export const isKeyRepeat = () => false;
export const Key = new Proxy({}, { get: (_t, p) => (typeof p === "string" ? p : undefined) });

// pi-ai: the schema helper extensions use, the TypeBox the plugin resolves, ids.
export function StringEnum(values, options = {}) {
  return { type: "string", enum: [...values], ...options };
}
export const uuidv7 = () => randomUUID();
