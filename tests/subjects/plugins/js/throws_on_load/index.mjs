// register() throws before registering anything.
export function register(_ctx) {
  throw new Error("cannot start: missing configuration");
}
