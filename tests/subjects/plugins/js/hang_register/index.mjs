// register() never settles.
export async function register(_ctx) {
  await new Promise(() => {});
}
