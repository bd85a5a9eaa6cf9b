// Conforming: two optional filters that narrow a list independently (either, both or neither), not a
// choice between alternatives (SCHEMA-3 does not apply). Its answers name the filters; an unknown
// parameter is refused naming that parameter alone, and a wrong type naming the filter.
import { defineTool } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { result } from "../_lib/check.mjs";

const FILTERS = ["status", "owner"];
const TASKS = [
  { title: "write the release notes", status: "open", owner: "ana" },
  { title: "fix the login page", status: "done", owner: "bo" },
];

export function register(ctx) {
  ctx.registerTool(defineTool({
    name: "ListTasks",
    label: "List tasks",
    description: "Lists the tasks of the project, optionally only those with a status and/or an owner.",
    parameters: Type.Object({
      status: Type.Optional(Type.String({ description: "Only tasks in this status (open, done)." })),
      owner: Type.Optional(Type.String({ description: "Only tasks of this owner." })),
    }),
    execute: async (_callId, params) => {
      const extra = Object.keys(params).find((key) => !FILTERS.includes(key));
      if (extra) return result(`unknown parameter ${extra}`);
      const wrong = FILTERS.find((key) => params[key] !== undefined && typeof params[key] !== "string");
      if (wrong) return result(`${wrong} must be a string`);
      const found = TASKS.filter(
        (task) => (params.status === undefined || task.status === params.status)
          && (params.owner === undefined || task.owner === params.owner),
      );
      const filters = `status ${params.status ?? "any"}, owner ${params.owner ?? "any"}`;
      return result(found.length
        ? `${filters}:\n${found.map((task) => `${task.title} (${task.status}, ${task.owner})`).join("\n")}`
        : `no task matched status or owner (${filters})`);
    },
  }));
}
