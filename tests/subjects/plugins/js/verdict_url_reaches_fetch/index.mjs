// A fetch tool whose url must be a URL before it makes a request. It answers a
// failed request as text, which ERR-3 forbids ("every transport and host fault ... is thrown"), but
// the kit saw it only once it gave `url` a URL: a plain string ("hello") is refused before any request.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "FetchPage",
    label: "Fetch page",
    description: "Fetches a web page and returns its text.",
    parameters: Type.Object({ url: Type.String({ description: "The URL of the page." }) }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { url: { type: "string" } });
      if (refused) return result(refused);
      let target;
      try {
        target = new URL(params.url);
      } catch {
        return result(`url must be an absolute URL, like https://example.com/, not ${JSON.stringify(params.url)}`);
      }
      try {
        const response = await fetch(target);
        return result(await response.text());
      } catch (error) {
        return result(`Could not fetch ${target.href}: ${error.cause?.code ?? error.message}`);
      }
    },
  }));
}
