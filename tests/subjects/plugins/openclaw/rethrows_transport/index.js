// A tool that rethrows a transport failure as a new, untagged Error: OpenClaw has no transport tag, so
// this meets ERR-4 (a throw, tagged or not). Verdict: conforms; ERR-3 and ERR-4 are judged and pass.
import { Type } from "typebox";

const result = (text, details) => ({ content: [{ type: "text", text }], details });

export default function register(api) {
  api.registerTool({
    name: "fetch_page",
    label: "Fetch page",
    description: "Fetches a web page and returns its text.",
    parameters: Type.Object({ url: Type.String({ description: "The URL of the page." }) }),
    async execute(_toolCallId, params) {
      if (typeof params?.url !== "string" || !URL.canParse(params.url)) {
        return result("url must be an http(s) URL", { refused: "url" });
      }
      let response;
      try {
        response = await fetch(params.url);
      } catch (error) {
        throw new Error(`could not reach ${params.url}: ${error.message}`);
      }
      if (response.status >= 500) throw new Error(`${params.url} answered ${response.status}`);
      if (!response.ok) return result(`no page at ${params.url} (${response.status})`, { status: response.status });
      return result(await response.text(), { status: response.status });
    },
  });
}
