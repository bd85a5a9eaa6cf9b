// The smallest wire host, on the kit's JavaScript host kit (pytest_toolconformance/host/js/wire.mjs):
// the handshake, reset and stop, and nothing else. It declares no capabilities, so the kit never
// sends it another method and every capability-gated check skips with the capability named.
import { serve } from "../../../pytest_toolconformance/host/js/wire.mjs";

serve({ name: "minimal-node-host", version: "0.0.1", capabilities: [], operations: {} });
