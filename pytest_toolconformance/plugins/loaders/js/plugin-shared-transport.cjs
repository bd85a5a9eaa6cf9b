// Kit shim for "elowen-plugin-shared/transport" (ERR-5); plugin-shared-transport.mjs re-exports it
// for ES module importers. The tag is a registered symbol (Symbol.for) so that every copy of this
// module (a jiti-transpiled one, a plugin's own) and the bridge itself agree on what a tagged error is.
"use strict";

const TAG = Symbol.for("elowen.transportFailure");

function markTransportFailure(error) {
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

function isTransportFailure(value) {
  return value !== null && (typeof value === "object" || typeof value === "function") && value[TAG] === true;
}

module.exports = { markTransportFailure, isTransportFailure };
