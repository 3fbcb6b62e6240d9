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
const missing = ERROR_CODES.filter((code) => !received.has(code));
if (missing.length > 0) {
  console.error(
    `error codes of spec 7 no test received through MCP (${missing.length} of ${ERROR_CODES.length}): ${missing.join(', ')}`,
  );
  process.exit(1);
}
console.log(
  `every error code of spec 7 was received through MCP (${ERROR_CODES.length}, from ${files.length} test processes)`,
);
