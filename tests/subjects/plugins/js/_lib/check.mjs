// Shared by the example plugins: the parts every conforming tool does the same way.
// A real plugin would keep these few lines in its own code.

export const result = (text, details = {}) => ({ content: [{ type: "text", text }], details });

const isType = (value, type) =>
  type === "integer" ? Number.isInteger(value) : type === "array" ? Array.isArray(value) : typeof value === type;

// The refusal text for params that do not fit spec ({name: {type, optional}}), or null when they fit.
// It names the parameter at fault, so the model knows what to fix (SCHEMA-4, NAME-6).
export function refusal(params, spec) {
  const expected = Object.keys(spec);
  if (params === null || typeof params !== "object" || Array.isArray(params)) {
    return `arguments must be an object with ${expected.join(", ") || "no parameters"}`;
  }
  for (const key of Object.keys(params)) {
    if (!expected.includes(key)) {
      return `unknown parameter ${key}; expected ${expected.join(", ") || "no parameters"}`;
    }
  }
  for (const [key, rule] of Object.entries(spec)) {
    const value = params[key];
    if (value === undefined) {
      if (!rule.optional) return `${key} is required`;
    } else if (!isType(value, rule.type)) {
      return `${key} must be a ${rule.type}`;
    }
  }
  return null;
}
