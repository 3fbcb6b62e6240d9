import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Which spec 7 error codes the tests actually received through MCP. `npm test` names its run in
// MCP_ERROR_CODES_RUN; each test process (mocha's parallel workers, then the serial run) keeps
// the codes it saw in a file of its own under the run's directory, and the last step of
// `npm test` (error-codes-check.ts) fails naming every code never received. A single test file
// run by hand records nothing.

/** The directory of a run's files. */
export const errorCodesDir = (run: string): string => join(tmpdir(), `mcp-error-codes-${run}`);

const seen = new Set<string>();

/** Notes an error code received through MCP (written at once: a worker may end without notice). */
export function recordErrorCode(code: unknown): void {
  const run = process.env.MCP_ERROR_CODES_RUN;
  if (!run || typeof code !== 'string' || seen.has(code)) return;
  seen.add(code);
  const dir = errorCodesDir(run);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify([...seen]));
}
