// A pi extension that imports the transport tag of another host (elowen-plugin-shared/transport): the
// reference host provides the module, pi does not, so in pi this extension would not load.
import { isTransportFailure, markTransportFailure } from "elowen-plugin-shared/transport";
import { Type } from "typebox";

const text = (value) => ({ content: [{ type: "text", text: value }], details: {} });

export default function (pi) {
  pi.registerTool({
    name: "fetch_page",
    label: "Fetch page",
    description: "Fetches a web page.",
    parameters: Type.Object({ url: Type.String({ description: "The address of the page." }) }),
    async execute(_toolCallId, params) {
      const extra = Object.keys(params).find((key) => key !== "url");
      if (extra) return text(`unknown parameter ${extra}; expected url`);
      if (typeof params.url !== "string") return text("url must be a string");
      try {
        const response = await fetch(params.url);
        if (response.status >= 500) throw markTransportFailure(new Error(`${params.url} answered ${response.status}`));
        return text(await response.text());
      } catch (error) {
        if (isTransportFailure(error)) throw error;
        throw markTransportFailure(error);
      }
    },
  });
}
