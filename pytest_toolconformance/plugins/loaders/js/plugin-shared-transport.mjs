// Kit shim for "elowen-plugin-shared/transport" (ERR-5).
// The tag is a registered symbol (Symbol.for) so that every copy of this module (ESM, the CJS
// twin, a jiti-transpiled copy) and the bridge itself agree on what a tagged error is.

const TAG = Symbol.for("elowen.transportFailure");

export function markTransportFailure(error) {
  if (error === null || (typeof error !== "object" && typeof error !== "function")) {
    throw new TypeError(
      `[ERR-5] markTransportFailure() takes an error object, got ${error === null ? "null" : typeof error}; ` +
        "wrap the failure in an Error first",
    );
  }
  // Non-enumerable so the tag never leaks into a serialized error or result.
  Object.defineProperty(error, TAG, { value: true, enumerable: false, configurable: true, writable: true });
  return error;
}

export function isTransportFailure(value) {
  return value !== null && (typeof value === "object" || typeof value === "function") && value[TAG] === true;
}
