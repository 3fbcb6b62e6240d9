// Runs before `npm start` and `npm test`: installs the dependencies (`npm ci`) when node_modules
// is missing or does not match package-lock.json, so a fresh clone needs no step of its own.
// Plain JavaScript on whatever Node runs npm: until node_modules is there, that is the
// machine's own, not the pinned Node 24.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import process from 'node:process';

const packagesOf = (path) => JSON.parse(readFileSync(path, 'utf8')).packages ?? {};

/** Why node_modules needs installing; null when it holds what the lockfile names. */
function staleness() {
  // npm writes this record of what it installed at the end of every install
  if (!existsSync('node_modules/.package-lock.json')) return 'node_modules is missing';
  const installed = packagesOf('node_modules/.package-lock.json');
  for (const [path, locked] of Object.entries(packagesOf('package-lock.json'))) {
    if (path === '') continue; // the project itself
    const found = installed[path];
    // optional packages of other platforms are never installed
    if (found ? found.version !== locked.version : !locked.optional)
      return `node_modules does not match package-lock.json (${path.replace(/^.*node_modules\//, '')})`;
  }
  return null;
}

const why = staleness();
if (why) {
  process.stderr.write(`${why}: installing the dependencies (npm ci)\n`);
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { stdio: 'inherit' });
}
