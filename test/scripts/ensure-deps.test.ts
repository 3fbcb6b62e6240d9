import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const SCRIPT = fileURLToPath(new URL('../../../scripts/ensure-deps.mjs', import.meta.url));

type Packages = Record<string, { version: string; optional?: boolean }>;

// The pre-script of `npm start` and `npm test` in a project folder of its own, with an `npm` on
// PATH that only notes how it was called: it installs when node_modules is missing or differs
// from the lockfile, and leaves a matching one alone.
describe('scripts/ensure-deps.mjs (before npm start and npm test)', function () {
  this.timeout(20_000);
  let dir: string;
  const locked: Packages = {
    'node_modules/a': { version: '1.0.0' },
    'node_modules/a/node_modules/b': { version: '2.0.0' },
    'node_modules/other-platform': { version: '3.0.0', optional: true },
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ensure-deps-'));
    writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ packages: { '': { name: 'x' }, ...locked } }));
    mkdirSync(join(dir, 'bin'));
    writeFileSync(join(dir, 'bin', 'npm'), '#!/bin/sh\necho "$@" > npm-called\n');
    chmodSync(join(dir, 'bin', 'npm'), 0o755);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const installed = (packages: Packages) => {
    mkdirSync(join(dir, 'node_modules'), { recursive: true });
    writeFileSync(join(dir, 'node_modules', '.package-lock.json'), JSON.stringify({ packages }));
  };
  /** Runs the script; what it printed, and the npm command it ran (null: none). */
  async function run(): Promise<{ said: string; npm: string | null }> {
    const { stderr } = await promisify(execFile)(process.execPath, [SCRIPT], {
      cwd: dir,
      env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}` },
    });
    const called = join(dir, 'npm-called');
    return { said: stderr, npm: existsSync(called) ? readFileSync(called, 'utf8').trim() : null };
  }

  it('runs npm ci when node_modules is missing', async () => {
    const { said, npm } = await run();
    expect(npm).to.equal('ci --no-audit --no-fund');
    expect(said).to.equal('node_modules is missing: installing the dependencies (npm ci)\n');
  });

  it('runs npm ci when an installed version differs from the lockfile, or a package is not installed', async () => {
    installed({ ...locked, 'node_modules/a/node_modules/b': { version: '1.9.0' } });
    expect(await run()).to.deep.equal({
      said: 'node_modules does not match package-lock.json (b): installing the dependencies (npm ci)\n',
      npm: 'ci --no-audit --no-fund',
    });
    rmSync(join(dir, 'npm-called'));
    installed({ 'node_modules/a': locked['node_modules/a']! });
    expect((await run()).npm).to.equal('ci --no-audit --no-fund');
  });

  it('does nothing when node_modules holds what the lockfile names (optional packages of other platforms aside)', async () => {
    const { 'node_modules/other-platform': _, ...required } = locked;
    installed(required);
    expect(await run()).to.deep.equal({ said: '', npm: null });
  });
});
