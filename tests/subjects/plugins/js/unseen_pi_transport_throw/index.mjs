// A pi extension (pi's own form: a default function receiving the ExtensionAPI). pi offers no transport
// tag, so its catch-all does what ERR-3/ERR-4 ask of a plugin in that host: a transport failure leaves
// the tool as a throw (untagged); a bad argument stays a text answer.
import { Type } from "typebox";

const text = (value) => ({ content: [{ type: "text", text: value }], details: {} });

export default function (pi) {
  pi.registerTool({
    name: "fetch_quote",
    label: "Fetch quote",
    description: "Fetches the current price of a stock symbol.",
    parameters: Type.Object({ symbol: Type.String({ description: "Ticker symbol, like ACME." }) }),
    async execute(_toolCallId, params) {
      const extra = Object.keys(params).find((key) => key !== "symbol");
      if (extra) return text(`unknown parameter ${extra}; expected symbol`);
      if (typeof params.symbol !== "string") return text("symbol must be a string");
      try {
        const response = await fetch(`https://quotes.example.com/v1/${encodeURIComponent(params.symbol)}`);
        if (response.status >= 500) throw new Error(`quote service answered ${response.status}`);
        return text(await response.text());
      } catch (error) {
        throw new Error(`quote service unavailable: ${error.message}`, { cause: error });
      }
    },
  });
}
