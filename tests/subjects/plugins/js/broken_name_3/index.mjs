// Breaks NAME-3: the second file, with its own role (the output), is called output_file, not output_path.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { refusal, result } from "../_lib/check.mjs";

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "ConvertImage",
    label: "Convert image",
    description: "Converts an image to PNG.",
    parameters: Type.Object({
      file_path: Type.String({ description: "The image file to convert." }),
      output_file: Type.Optional(Type.String({ description: "Where to write the PNG; next to the input if omitted." })),
    }),
    execute: async (_callId, params) => {
      const refused = refusal(params, { file_path: { type: "string" }, output_file: { type: "string", optional: true } });
      if (refused) return result(refused);
      return result(`file_path ${params.file_path} is not an image this example can convert`);
    },
  }));
}
