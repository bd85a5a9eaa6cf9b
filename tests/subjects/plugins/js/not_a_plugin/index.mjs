// Exports things, but no register and no default function.
export const name = "not a plugin";
export function helper() {
  return 42;
}
