// The words of execution_error, the same whichever side of the runner boundary stopped the run.

export const timedOutMessage = (ms: number): string => `timed out after ${ms} ms`;

export const memoryMessage = (mb: number): string => `memory limit ${mb} MB exceeded`;

/** "TypeError: x is not a function (line 3, column 9)": the place is the first frame in the automation's code. */
export function describeThrown(
  name: string | undefined,
  message: string | undefined,
  stack: string | undefined,
): string {
  const at = stack && /automation\.js:(\d+):(\d+)/.exec(stack);
  const where = at ? ` (line ${at[1]}, column ${at[2]})` : '';
  if (name === undefined && message !== undefined) return `handle threw ${message}${where}`;
  return `${name || 'Error'}: ${message ?? ''}${where}`;
}
