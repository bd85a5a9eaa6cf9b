// Breaks ERR-4: written for the seam's host (it imports elowen-plugin-shared/transport), its catch-all
// rethrows only what is already tagged and wraps the rest in a new, untagged error, so the host cannot
// tell the fetch failure is a transport fault.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { isTransportFailure } from "elowen-plugin-shared/transport";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "FetchQuote",
    label: "Fetch quote",
    description: "Fetches the current price of a stock symbol.",
    parameters: Type.Object({ symbol: Type.String({ description: "Ticker symbol, like ACME." }) }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { symbol: { type: "string" } });
      if (refused) return result(refused);
      try {
        const response = await fetch(`https://quotes.example.com/v1/${encodeURIComponent(params.symbol)}`);
        return result(await response.text());
      } catch (error) {
        if (isTransportFailure(error)) throw error;
        throw new Error(`quote service unavailable: ${error.message}`);
      }
    },
  }));
}
