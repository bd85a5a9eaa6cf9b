// Reads a token from the environment when it is imported, and throws naming it when it is not set: under
// the kit, only a variable passed with --toolconformance-pass-env is set.
const token = process.env.CONFORMANCE_SUBJECT_TOKEN;
if (!token) throw new Error("CONFORMANCE_SUBJECT_TOKEN is not set");

export function register(ctx) {
  ctx.registerTool({
    name: "MyTool",
    label: "Example tool",
    description: "Returns the supplied text.",
    parameters: { type: "object", properties: { value: { type: "string", description: "Text to return." } }, required: ["value"] },
    execute: async (_id, params) => ({ content: [{ type: "text", text: String(params.value) }], details: {} }),
  });
}
