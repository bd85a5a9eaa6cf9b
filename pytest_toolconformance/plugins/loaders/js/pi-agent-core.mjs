// Kit stand-in for @earendil-works/pi-agent-core 1.6.0 (and @mariozechner/pi-agent-core): every export name of the
// pinned package; see pi-siblings.mjs for what each does. Generated from the real package's export list.
import * as impl from "./pi-siblings.mjs";

export const Agent = impl.standInClass("pi-agent-core", "Agent");
export const DEFAULT_AGENT_IDENTITY = Object.freeze({ name: "pi" });
export const agentLoop = impl.standInFunction("pi-agent-core", "agentLoop");
export const agentLoopContinue = impl.standInFunction("pi-agent-core", "agentLoopContinue");
export const runAgentLoop = impl.standInFunction("pi-agent-core", "runAgentLoop");
export const runAgentLoopContinue = impl.standInFunction("pi-agent-core", "runAgentLoopContinue");
export const runToolCall = impl.standInFunction("pi-agent-core", "runToolCall");
export const setDefaultStreamFn = impl.standInFunction("pi-agent-core", "setDefaultStreamFn");
export const streamProxy = impl.standInFunction("pi-agent-core", "streamProxy");
