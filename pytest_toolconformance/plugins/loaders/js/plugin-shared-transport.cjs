// CommonJS twin of plugin-shared-transport.mjs; same registered-symbol tag.
"use strict";

const TAG = Symbol.for("elowen.transportFailure");

function markTransportFailure(error) {
  if (error === null || (typeof error !== "object" && typeof error !== "function")) {
    throw new TypeError(
      `[ERR-5] markTransportFailure() takes an error object, got ${error === null ? "null" : typeof error}; ` +
        "wrap the failure in an Error first",
    );
  }
  Object.defineProperty(error, TAG, { value: true, enumerable: false, configurable: true, writable: true });
  return error;
}

function isTransportFailure(value) {
  return value !== null && (typeof value === "object" || typeof value === "function") && value[TAG] === true;
}

module.exports = { markTransportFailure, isTransportFailure };
