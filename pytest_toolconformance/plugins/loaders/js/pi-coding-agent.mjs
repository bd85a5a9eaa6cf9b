// Kit stand-in for "@earendil-works/pi-coding-agent" (and "@mariozechner/pi-coding-agent"), used only
// when the plugin's folder does not resolve the real package (then the real one is loaded instead).
//
// It exports every name of the pinned pi 1.6.0 (tests/kit/plugins/test_node_bridge.py compares the list with
// the real package), so that no import is ever undefined. What a tool plugin calls while it
// registers or runs is implemented after pi's own source: defineTool, the built-in tool factories
// (same names and schemas as pi's, simpler handlers), the truncation helpers, getAgentDir,
// formatSize, the session manager over an in-memory session, key hints and themes that return
// their text. What only pi's interactive application does (the TUI components, model providers,
// compaction by an LLM, running pi itself) constructs or is callable, and says so in one line
// when it is asked to do real work.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const BUILTIN = require("./pi-builtin-tools-1.6.0.json");

export const VERSION = "1.6.0";
export const CONFIG_DIR_NAME = ".pi";
export const CURRENT_SESSION_VERSION = 3;
export const DEFAULT_MAX_BYTES = 50 * 1024;
export const DEFAULT_MAX_LINES = 2000;
export const VIRTUAL_MODEL_STATE_ENTRY = "pi.virtual-model-state";
export const DEFAULT_COMPACTION_SETTINGS = Object.freeze({ enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 });
const GREP_MAX_LINE_LENGTH = 500;

function notEmulated(name) {
  return new Error(
    `${name} of @earendil-works/pi-coding-agent needs pi's interactive application, which the conformance kit's ` +
      "stand-in does not run; install the real package where the plugin resolves it " +
      "(npm install @earendil-works/pi-coding-agent) to use it",
  );
}

// -- the definition helpers ---------------------------------------------------------------------

export function defineTool(tool) {
  if (tool === null || typeof tool !== "object" || Array.isArray(tool)) {
    throw new TypeError(
      `defineTool() takes a tool object {name, label, description, parameters, execute}, got ${
        tool === null ? "null" : Array.isArray(tool) ? "an array" : typeof tool
      }`,
    );
  }
  return tool;
}

export function isToolCallEventType(toolName, event) {
  return event?.toolName === toolName;
}

const resultOf = (name) => (event) => event?.toolName === name;
export const isBashToolResult = resultOf("bash");
export const isReadToolResult = resultOf("read");
export const isEditToolResult = resultOf("edit");
export const isWriteToolResult = resultOf("write");
export const isGrepToolResult = resultOf("grep");
export const isFindToolResult = resultOf("find");
export const isLsToolResult = resultOf("ls");
export const isPowerShellToolResult = resultOf("powershell");

export function wrapRegisteredTool(tool) {
  return tool?.definition ?? tool;
}
export function wrapRegisteredTools(tools) {
  return (tools ?? []).map((tool) => wrapRegisteredTool(tool));
}

// -- paths and sizes ----------------------------------------------------------------------------

export function getAgentDir() {
  const envDir = process.env.PI_CODING_AGENT_DIR;
  if (envDir) return envDir.startsWith("~") ? path.join(os.homedir(), envDir.slice(1)) : envDir;
  return path.join(os.homedir(), CONFIG_DIR_NAME, "agent");
}
const HERE = path.dirname(new URL(import.meta.url).pathname);
export const getPackageDir = () => HERE;
export const getDocsPath = () => path.join(HERE, "docs");
export const getExamplesPath = () => path.join(HERE, "examples");
export const getReadmePath = () => path.join(HERE, "README.md");

export function formatSize(bytes) {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

function splitLines(content) {
  const lines = content.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function truncation(content, options, fromEnd) {
  const maxLines = options?.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = options?.maxBytes ?? DEFAULT_MAX_BYTES;
  const totalBytes = Buffer.byteLength(content, "utf-8");
  const lines = splitLines(content);
  const base = { totalLines: lines.length, totalBytes, lastLinePartial: false, firstLineExceedsLimit: false, maxLines, maxBytes };
  if (lines.length <= maxLines && totalBytes <= maxBytes) {
    return { content, truncated: false, truncatedBy: null, outputLines: lines.length, outputBytes: totalBytes, ...base };
  }
  const kept = [];
  let bytes = 0;
  let by = "lines";
  const order = fromEnd ? [...lines].reverse() : lines;
  for (const line of order) {
    if (kept.length >= maxLines) break;
    const size = Buffer.byteLength(line, "utf-8") + (kept.length > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      by = "bytes";
      break;
    }
    kept.push(line);
    bytes += size;
  }
  if (fromEnd) kept.reverse();
  const text = kept.join("\n");
  return {
    content: text,
    truncated: true,
    truncatedBy: by,
    outputLines: kept.length,
    outputBytes: Buffer.byteLength(text, "utf-8"),
    ...base,
    firstLineExceedsLimit: !fromEnd && kept.length === 0,
  };
}
export const truncateHead = (content, options = {}) => truncation(String(content), options, false);
export const truncateTail = (content, options = {}) => truncation(String(content), options, true);
export function truncateLine(line, maxChars = GREP_MAX_LINE_LENGTH) {
  return line.length <= maxChars ? { text: line, wasTruncated: false } : { text: `${line.slice(0, maxChars)}... [truncated]`, wasTruncated: true };
}
export function truncateToVisualLines(text, maxLines, _width) {
  const lines = String(text).split("\n");
  return { visualLines: lines.slice(-maxLines), skippedCount: Math.max(0, lines.length - maxLines) };
}
export function formatReadLineRange(offset, limit) {
  if (offset === undefined && limit === undefined) return "";
  const start = offset ?? 1;
  return limit === undefined ? `:${start}` : `:${start}-${start + limit - 1}`;
}
export const formatDimensionNote = (info) => (info?.wasResized ? `[Image resized to ${info.width}x${info.height}]` : undefined);
export const estimateTokens = (message) => Math.ceil(JSON.stringify(message ?? "").length / 4);
export const calculateContextTokens = (usage) =>
  (usage?.totalTokens ?? 0) || (usage?.input ?? 0) + (usage?.output ?? 0) + (usage?.cacheRead ?? 0) + (usage?.cacheWrite ?? 0);
export const shouldCompact = (contextTokens, contextWindow, settings) =>
  Boolean(settings?.enabled) && contextTokens > contextWindow - (settings?.reserveTokens ?? 0);
export const getLanguageFromPath = (file) => {
  const ext = path.extname(String(file)).slice(1).toLowerCase();
  return { ts: "typescript", js: "javascript", mjs: "javascript", py: "python", md: "markdown", json: "json", sh: "bash" }[ext];
};
export const highlightCode = (code) => String(code).split("\n");
export function generateDiffString(oldContent, newContent) {
  const a = String(oldContent).split("\n");
  const b = String(newContent).split("\n");
  const diff = [...a.filter((l) => !b.includes(l)).map((l) => `-${l}`), ...b.filter((l) => !a.includes(l)).map((l) => `+${l}`)].join("\n");
  return { diff, firstChangedLine: undefined };
}
export const generateUnifiedPatch = (oldContent, newContent, file = "file") =>
  `--- ${file}\n+++ ${file}\n${generateDiffString(oldContent, newContent).diff}\n`;
export const renderDiff = (diff) => String(diff);
export function parseFrontmatter(content) {
  const text = String(content);
  const match = /^---\n([\s\S]*?)\n---\n?/.exec(text);
  if (!match) return { frontmatter: {}, body: text };
  const frontmatter = {};
  for (const line of match[1].split("\n")) {
    const at = line.indexOf(":");
    if (at > 0) frontmatter[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return { frontmatter, body: text.slice(match[0].length) };
}
export const stripFrontmatter = (content) => parseFrontmatter(content).body;
export const parseSkillBlock = () => null;
export const formatSkillsForPrompt = (skills) => (skills ?? []).map((s) => `- ${s.name}: ${s.description ?? ""}`).join("\n");
export const loadSkills = () => ({ skills: [], diagnostics: [] });
export const loadSkillsFromDir = () => ({ skills: [], diagnostics: [] });
export const loadProjectContextFiles = () => [];
export const hasTrustRequiringProjectResources = () => false;
export const detectSupportedImageMimeTypeFromFile = async (file) => {
  const ext = path.extname(String(file)).toLowerCase();
  return { ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp" }[ext] ?? null;
};
export const getShellConfig = () => ({ shell: process.env.SHELL || "/bin/bash", args: ["-c"] });
export const getPowerShellConfig = () => ({ shell: "pwsh", args: ["-Command"] });

// -- key hints and themes: without a terminal, text stays text ----------------------------------

export const keyText = (key) => String(key);
export const keyHint = (key, description) => `${keyText(key)} ${description ?? ""}`.trim();
export const rawKeyHint = (key, description) => `${key} ${description ?? ""}`.trim();

function plainTheme() {
  return new Proxy({}, {
    get(_target, property) {
      if (property === "then" || typeof property === "symbol") return undefined;
      if (property === "name") return "plain";
      return (...args) => String(args[args.length - 1] ?? "");
    },
  });
}
export class Theme {
  constructor() {
    return plainTheme();
  }
}
export const getMarkdownTheme = () => plainTheme();
export const getSelectListTheme = () => plainTheme();
export const getSettingsListTheme = () => plainTheme();
export const initTheme = () => undefined;

// -- the built-in tools: pi's names and schemas, plain handlers ----------------------------------

const text = (value, details = {}) => ({ content: [{ type: "text", text: value }], details });
const inside = (cwd, file) => path.resolve(cwd ?? process.cwd(), String(file));

function builtin(name, cwd, execute) {
  const spec = BUILTIN[name];
  return { ...structuredClone(spec), execute: (id, params, signal, onUpdate, ctx) => execute(params ?? {}, signal, ctx) };
}

function runShell(command, cwd, signal, timeoutSeconds) {
  return new Promise((resolve, reject) => {
    const child = spawn(getShellConfig().shell, ["-c", command], { cwd, signal, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const timer = timeoutSeconds ? setTimeout(() => child.kill("SIGKILL"), timeoutSeconds * 1000) : null;
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => {
      if (timer) clearTimeout(timer);
      resolve({ out, code });
    });
  });
}

const tools = {
  read: (cwd) =>
    builtin("read", cwd, async ({ path: file, offset, limit }) => {
      const lines = (await fs.promises.readFile(inside(cwd, file), "utf8")).split("\n");
      const start = Math.max(0, (offset ?? 1) - 1);
      return text(truncateHead(lines.slice(start, limit ? start + limit : undefined).join("\n")).content);
    }),
  bash: (cwd) =>
    builtin("bash", cwd, async ({ command, timeout }, signal) => {
      const { out, code } = await runShell(String(command), cwd, signal, timeout);
      if (code !== 0) throw new Error(`${out}\n\nCommand exited with code ${code}`.trim());
      return text(truncateTail(out).content || "(no output)");
    }),
  edit: (cwd) =>
    builtin("edit", cwd, async ({ path: file, edits, oldText, newText }) => {
      const target = inside(cwd, file);
      let content = await fs.promises.readFile(target, "utf8");
      for (const edit of edits ?? [{ oldText, newText }]) {
        if (!content.includes(edit.oldText)) throw new Error(`Could not find the exact text in ${file}`);
        content = content.replace(edit.oldText, edit.newText);
      }
      await fs.promises.writeFile(target, content);
      return text(`Successfully replaced text in ${file}.`);
    }),
  write: (cwd) =>
    builtin("write", cwd, async ({ path: file, content }) => {
      const target = inside(cwd, file);
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      await fs.promises.writeFile(target, String(content));
      return text(`Successfully wrote ${Buffer.byteLength(String(content))} bytes to ${file}`);
    }),
  ls: (cwd) =>
    builtin("ls", cwd, async ({ path: dir }) => {
      const names = await fs.promises.readdir(inside(cwd, dir ?? "."), { withFileTypes: true });
      return text(names.map((d) => d.name + (d.isDirectory() ? "/" : "")).sort().join("\n") || "(empty directory)");
    }),
  find: (cwd) =>
    builtin("find", cwd, async ({ pattern, path: dir }) => {
      const root = inside(cwd, dir ?? ".");
      const glob = new RegExp(`^${String(pattern).replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*\*\/?/g, ".*").replace(/\*/g, "[^/]*")}$`);
      const found = fs.readdirSync(root, { recursive: true }).map(String).filter((f) => glob.test(f) || glob.test(path.basename(f)));
      return text(found.sort().join("\n") || "No files found matching pattern");
    }),
  grep: (cwd) =>
    builtin("grep", cwd, async ({ pattern, path: dir, ignoreCase, literal }) => {
      const root = inside(cwd, dir ?? ".");
      const source = literal ? String(pattern).replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : String(pattern);
      const re = new RegExp(source, ignoreCase ? "i" : "");
      const files = fs.statSync(root).isDirectory() ? fs.readdirSync(root, { recursive: true }).map((f) => path.join(root, String(f))) : [root];
      const hits = [];
      for (const file of files) {
        if (!fs.statSync(file).isFile()) continue;
        fs.readFileSync(file, "utf8").split("\n").forEach((line, i) => {
          if (re.test(line)) hits.push(`${path.relative(root, file) || path.basename(file)}:${i + 1}: ${truncateLine(line).text}`);
        });
      }
      return text(hits.join("\n") || "No matches found");
    }),
};

export const createReadTool = (cwd) => tools.read(cwd);
export const createBashTool = (cwd) => tools.bash(cwd);
export const createEditTool = (cwd) => tools.edit(cwd);
export const createWriteTool = (cwd) => tools.write(cwd);
export const createGrepTool = (cwd) => tools.grep(cwd);
export const createFindTool = (cwd) => tools.find(cwd);
export const createLsTool = (cwd) => tools.ls(cwd);
export const createReadToolDefinition = createReadTool;
export const createBashToolDefinition = createBashTool;
export const createEditToolDefinition = createEditTool;
export const createWriteToolDefinition = createWriteTool;
export const createGrepToolDefinition = createGrepTool;
export const createFindToolDefinition = createFindTool;
export const createLsToolDefinition = createLsTool;
export const createCodingTools = (cwd) => [createReadTool(cwd), createBashTool(cwd), createEditTool(cwd), createWriteTool(cwd)];
export const createReadOnlyTools = (cwd) => [createReadTool(cwd), createGrepTool(cwd), createFindTool(cwd), createLsTool(cwd)];
export const createPowerShellTool = (cwd) => ({ ...createBashTool(cwd), name: "powershell", label: "powershell" });
export const createPowerShellToolDefinition = createPowerShellTool;
export const createLocalBashOperations = () => ({
  exec: async (command, cwd, options) => {
    const { out, code } = await runShell(command, cwd, options?.signal, options?.timeout);
    options?.onData?.(Buffer.from(out));
    return { exitCode: code };
  },
});
export const createLocalPowerShellOperations = createLocalBashOperations;

const fileQueues = new Map();
export async function withFileMutationQueue(filePath, fn) {
  const key = path.resolve(String(filePath));
  const previous = fileQueues.get(key) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(fn);
  fileQueues.set(key, next);
  try {
    return await next;
  } finally {
    if (fileQueues.get(key) === next) fileQueues.delete(key);
  }
}

// -- sessions -----------------------------------------------------------------------------------

let entryIds = 0;
export class SessionManager {
  constructor(cwd = process.cwd()) {
    this.cwd = cwd;
    this.id = `kit-session-${process.pid}-${Date.now().toString(36)}`;
    this.entries = [];
    this.name = undefined;
  }
  static inMemory(cwd = process.cwd()) {
    return new SessionManager(cwd);
  }
  static create(cwd) {
    return new SessionManager(cwd);
  }
  static continueRecent(cwd) {
    return new SessionManager(cwd);
  }
  static open() {
    throw notEmulated("SessionManager.open()");
  }
  static async list() {
    return [];
  }
  static async listAll() {
    return [];
  }
  isPersisted() {
    return false;
  }
  getCwd() {
    return this.cwd;
  }
  getSessionDir() {
    return undefined;
  }
  getSessionId() {
    return this.id;
  }
  getSessionFile() {
    return undefined;
  }
  getSessionName() {
    return this.name;
  }
  getHeader() {
    return { type: "session", version: CURRENT_SESSION_VERSION, id: this.id, timestamp: new Date(0).toISOString(), cwd: this.cwd };
  }
  _append(entry) {
    const full = { id: `e${(entryIds += 1)}`, parentId: this.getLeafId(), timestamp: new Date().toISOString(), ...entry };
    this.entries.push(full);
    return full.id;
  }
  appendMessage(message) {
    return this._append({ type: "message", message });
  }
  appendCustomEntry(customType, data) {
    return this._append({ type: "custom", customType, data });
  }
  appendCustomMessageEntry(customType, content, display, details) {
    return this._append({ type: "custom_message", customType, content, display, details });
  }
  appendSessionInfo(name) {
    this.name = name;
    return this._append({ type: "session_info", name });
  }
  appendLabelChange(targetId, label) {
    return this._append({ type: "label", targetId, label });
  }
  appendThinkingLevelChange(thinkingLevel) {
    return this._append({ type: "thinking_level_change", thinkingLevel });
  }
  appendModelChange(provider, modelId) {
    return this._append({ type: "model_change", provider, modelId });
  }
  getLeafId() {
    return this.entries.length ? this.entries[this.entries.length - 1].id : null;
  }
  getLeafEntry() {
    return this.entries[this.entries.length - 1];
  }
  getEntry(id) {
    return this.entries.find((e) => e.id === id);
  }
  getChildren(parentId) {
    return this.entries.filter((e) => e.parentId === parentId);
  }
  getLabel() {
    return undefined;
  }
  getBranch() {
    return [...this.entries];
  }
  getEntries() {
    return [...this.entries];
  }
  getEntryCount() {
    return this.entries.length;
  }
  getTree() {
    return [];
  }
  buildSessionContext() {
    return { messages: this.entries.filter((e) => e.type === "message").map((e) => e.message), thinkingLevel: "off", model: null };
  }
  buildContextEntries() {
    return this.getBranch();
  }
  buildSessionProjection() {
    return { entries: this.getBranch() };
  }
  branch() {}
  resetLeaf() {}
}
export const buildSessionContext = (entries = []) => ({ messages: entries.filter((e) => e?.type === "message").map((e) => e.message), thinkingLevel: "off", model: null });
export const buildContextEntries = (entries = []) => [...entries];
export const buildSessionProjection = (entries = []) => ({ entries: [...entries] });
export const parseSessionEntries = (content) => String(content).split("\n").filter(Boolean).map((l) => JSON.parse(l));
export const migrateSessionEntries = (entries) => entries;
export const sessionEntryToContextMessages = (entry) => (entry?.type === "message" ? [entry.message] : []);
export const getLatestCompactionEntry = (entries = []) => [...entries].reverse().find((e) => e?.type === "compaction");
export const getLastAssistantUsage = (entries = []) =>
  [...entries].reverse().find((e) => e?.type === "message" && e.message?.role === "assistant")?.message?.usage;
export const findTurnStartIndex = (entries = [], index = entries.length - 1) => {
  for (let i = index; i >= 0; i -= 1) if (entries[i]?.message?.role === "user") return i;
  return 0;
};
export const findCutPoint = () => ({ firstKeptEntryIndex: 0, turnStartIndex: -1, isSplitTurn: false });
export const collectEntriesForBranchSummary = () => ({ entries: [], commonAncestorId: null });
export const prepareBranchEntries = (entries = []) => ({ messages: [], fileOps: {}, totalTokens: 0, entries });
export const serializeConversation = (messages = []) =>
  messages.map((m) => `[${m.role}]: ${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`).join("\n\n");
export const convertToLlm = (messages = []) => messages.filter((m) => ["user", "assistant", "toolResult"].includes(m?.role));
export const createSyntheticSourceInfo = (p, options = {}) => ({ path: p, source: options.source ?? "local", scope: "temporary", origin: "top-level", baseDir: options.baseDir });

export function createEventBus() {
  const handlers = new Map();
  return {
    emit(channel, data) {
      for (const handler of handlers.get(channel) ?? []) Promise.resolve().then(() => handler(data)).catch(() => undefined);
    },
    on(channel, handler) {
      const list = handlers.get(channel) ?? [];
      list.push(handler);
      handlers.set(channel, list);
      return () => handlers.set(channel, (handlers.get(channel) ?? []).filter((h) => h !== handler));
    },
    clear() {
      handlers.clear();
    },
  };
}

// -- what only pi's application does -------------------------------------------------------------

function applicationClass(name) {
  // Constructs (a plugin may build one in a renderer that never runs without a UI); any use of it says why.
  const cls = {
    [name]: class {
      constructor(...args) {
        this.args = args;
        return new Proxy(this, {
          get(target, property) {
            if (property in target || typeof property === "symbol" || property === "then") return target[property];
            return () => {
              throw notEmulated(`${name}.${String(property)}()`);
            };
          },
        });
      }
    },
  }[name];
  return cls;
}
function applicationFunction(name) {
  return {
    [name]: () => {
      throw notEmulated(`${name}()`);
    },
  }[name];
}

export const AgentSession = applicationClass("AgentSession");
export const AgentSessionRuntime = applicationClass("AgentSessionRuntime");
export const ArminComponent = applicationClass("ArminComponent");
export const AssistantMessageComponent = applicationClass("AssistantMessageComponent");
export const BashExecutionComponent = applicationClass("BashExecutionComponent");
export const BorderedLoader = applicationClass("BorderedLoader");
export const BranchSummaryMessageComponent = applicationClass("BranchSummaryMessageComponent");
export const CompactionSummaryMessageComponent = applicationClass("CompactionSummaryMessageComponent");
export class CredentialSynchronizationError extends Error {
  constructor(message) {
    super(message);
    this.name = "CredentialSynchronizationError";
  }
}
export const CustomEditor = applicationClass("CustomEditor");
export const CustomMessageComponent = applicationClass("CustomMessageComponent");
export const DefaultPackageManager = applicationClass("DefaultPackageManager");
export const DefaultResourceLoader = applicationClass("DefaultResourceLoader");
export const DynamicBorder = applicationClass("DynamicBorder");
export const ExtensionEditorComponent = applicationClass("ExtensionEditorComponent");
export const ExtensionInputComponent = applicationClass("ExtensionInputComponent");
export const ExtensionRunner = applicationClass("ExtensionRunner");
export const ExtensionSelectorComponent = applicationClass("ExtensionSelectorComponent");
export const FooterComponent = applicationClass("FooterComponent");
export const InteractiveMode = applicationClass("InteractiveMode");
export const LoginDialogComponent = applicationClass("LoginDialogComponent");
export const ModelRegistry = applicationClass("ModelRegistry");
export const ModelRuntime = applicationClass("ModelRuntime");
export const ModelSelectorComponent = applicationClass("ModelSelectorComponent");
export const OAuthSelectorComponent = applicationClass("OAuthSelectorComponent");
export const ProjectTrustStore = applicationClass("ProjectTrustStore");
export const RpcClient = applicationClass("RpcClient");
export const SessionSelectorComponent = applicationClass("SessionSelectorComponent");
export const SettingsManager = applicationClass("SettingsManager");
export const SettingsSelectorComponent = applicationClass("SettingsSelectorComponent");
export const ShowImagesSelectorComponent = applicationClass("ShowImagesSelectorComponent");
export const SkillInvocationMessageComponent = applicationClass("SkillInvocationMessageComponent");
export const ThemeSelectorComponent = applicationClass("ThemeSelectorComponent");
export const ThinkingSelectorComponent = applicationClass("ThinkingSelectorComponent");
export const ToolExecutionComponent = applicationClass("ToolExecutionComponent");
export const TreeSelectorComponent = applicationClass("TreeSelectorComponent");
export const UserMessageComponent = applicationClass("UserMessageComponent");
export const UserMessageSelectorComponent = applicationClass("UserMessageSelectorComponent");

export const compact = applicationFunction("compact");
export const generateSummary = applicationFunction("generateSummary");
export const generateSummaryWithUsage = applicationFunction("generateSummaryWithUsage");
export const generateBranchSummary = applicationFunction("generateBranchSummary");
export const createAgentSession = applicationFunction("createAgentSession");
export const createAgentSessionFromServices = applicationFunction("createAgentSessionFromServices");
export const createAgentSessionRuntime = applicationFunction("createAgentSessionRuntime");
export const createAgentSessionServices = applicationFunction("createAgentSessionServices");
export const createExtensionRuntime = applicationFunction("createExtensionRuntime");
export const discoverAndLoadExtensions = applicationFunction("discoverAndLoadExtensions");
export const createCodemodeExtension = applicationFunction("createCodemodeExtension");
export const createMcpExtension = applicationFunction("createMcpExtension");
export const createToolSearchExtension = applicationFunction("createToolSearchExtension");
export const main = applicationFunction("main");
export const parseArgs = applicationFunction("parseArgs");
export const runPrintMode = applicationFunction("runPrintMode");
export const runRpcMode = applicationFunction("runRpcMode");
export const resolveCliModel = applicationFunction("resolveCliModel");
export const resolveModelScopeWithDiagnostics = applicationFunction("resolveModelScopeWithDiagnostics");
export const readStoredCredential = async () => undefined;
export const copyToClipboard = applicationFunction("copyToClipboard");
export const convertToPng = applicationFunction("convertToPng");
export const resizeImage = applicationFunction("resizeImage");
