/**
 * Checks `condition` every `everyMs` until it holds (true) or `withinMs` have passed (false,
 * after one last check). For waits on something another process moves, such as a projection.
 */
export async function pollUntil(
  condition: () => Promise<boolean>,
  withinMs: number,
  everyMs: number,
): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
