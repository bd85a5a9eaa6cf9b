// Fetch tools that let a refused request throw (fetch throws for it), so a refused
// connection shows nothing wrong. FetchStatus answers an origin's 5xx as text, which ERR-3 forbids
// ("an origin answering 5xx ... is thrown"): only a request that reaches an origin shows it, the kit's
// fault origin. FetchStatusTagged throws the 5xx tagged with markTransportFailure (ERR-3, ERR-4).
import { defineTool } from "@earendil-works/pi-coding-agent";
import { markTransportFailure } from "elowen-plugin-shared/transport";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

function fetchTool(name, onFailedStatus) {
  return defineTool({
    name,
    label: name,
    description: "Fetches a web page and returns its text.",
    parameters: Type.Object({ url: Type.String({ description: "The URL of the page." }) }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { url: { type: "string" } });
      if (refused) return result(refused);
      try {
        new URL(params.url);
      } catch {
        return result(`url must be an absolute URL, not ${JSON.stringify(params.url)}`);
      }
      const response = await fetch(params.url);
      if (!response.ok) return onFailedStatus(response);
      return result(await response.text());
    },
  });
}

export function register(ctx) {
  ctx.registerTool(fetchTool("FetchStatus", (response) => result(`HTTP ${response.status}: could not fetch the page`)));
  ctx.registerTool(fetchTool("FetchStatusTagged", (response) => {
    throw markTransportFailure(new Error(`HTTP ${response.status} from ${response.url}`));
  }));
}
