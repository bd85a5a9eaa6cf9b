// Verdict: conforms. Its tool declares no parameters (Type.Object({})) and ignores what it is
// given: there is no default target to use silently, so NAME-6 and SCHEMA-4 do not apply.
import { Type } from "typebox";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.registerTool({
    name: "session_status",
    label: "Session status",
    description: "Reports whether the session is idle.",
    parameters: Type.Object({}),
    async execute(_id, _params, _signal, _onUpdate, ctx) {
      return { content: [{ type: "text", text: ctx.isIdle() ? "idle" : "busy" }], details: {} };
    },
  });
}
