// Kit shim for "elowen-plugin-shared/transport" (ERR-5), for ES module importers. The functions are
// the CommonJS shim's own, so an import and a require of the module mark and recognise errors with
// one piece of code.

export { isTransportFailure, markTransportFailure } from "./plugin-shared-transport.cjs";
