import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES } from '../../src/domain/shared/errors.js';
import { errorCodesDir } from './error-codes.js';

// The last step of `npm test`: every error code of spec 7 (the ErrorCode type's list) must have
// been received through MCP by some test of the run; fails naming those never received.

const run = process.env.MCP_ERROR_CODES_RUN;
if (!run) {
  console.error('MCP_ERROR_CODES_RUN is not set: run this through `npm test`');
  process.exit(2);
}
const dir = errorCodesDir(run);
let files: string[] = [];
try {
  files = readdirSync(dir).filter((f) => f.endsWith('.json'));
} catch {
  // no test process recorded anything
}
const received = new Set(files.flatMap((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as string[]));
rmSync(dir, { recursive: true, force: true });
// Codes no path answers through MCP yet, each with why: printed on every run, and a run that
// receives one fails until it is taken out (a ratchet, never a place to park a new code).
const NOT_YET: Readonly<Record<string, string>> = {
  conflict:
    'update_listing answers it only when other writers keep changing a flag past its retries; only the command-level test races it',
};
const missing = ERROR_CODES.filter((code) => !received.has(code) && !(code in NOT_YET));
const nowReceived = Object.keys(NOT_YET).filter((code) => received.has(code));
for (const [code, why] of Object.entries(NOT_YET)) console.log(`not yet received through MCP: ${code} (${why})`);
if (nowReceived.length > 0) {
  console.error(`received now, take them out of NOT_YET in ${import.meta.filename}: ${nowReceived.join(', ')}`);
  process.exit(1);
}
if (missing.length > 0) {
  console.error(
    `error codes of spec 7 no test received through MCP (${missing.length} of ${ERROR_CODES.length}): ${missing.join(', ')}`,
  );
  process.exit(1);
}
console.log(
  `every other error code of spec 7 was received through MCP (${ERROR_CODES.length - Object.keys(NOT_YET).length} of ${ERROR_CODES.length}, from ${files.length} test processes)`,
);
