// Breaks ERR-3: a failed request is flattened into a text answer instead of being thrown.
import { defineTool } from "@earendil-works/pi-coding-agent";
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
        return result(`Sorry, the quote service is unavailable (${error.cause?.code ?? error.message}).`);
      }
    },
  }));
}
