import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
// devDependencies), run as its CLI on this Node against a server URL, and what it found.

const PACKAGE = fileURLToPath(new URL('../../../node_modules/@modelcontextprotocol/conformance/', import.meta.url));

export interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
  /** what the check saw (e.g. the URIs or names a list scenario read) */
  details?: Record<string, unknown>;
}

export interface ConformanceRun {
  /** the CLI's exit code: 0 when every scenario it scores passed */
  code: number;
  /** each scenario run, with its checks */
  scenarios: Map<string, Check[]>;
}

/** The server scenarios a revision's requirement set scores (its `server:` list). */
export async function requiredServerScenarios(revision: string): Promise<string[]> {
  const yaml = await readFile(join(PACKAGE, 'requirements', `${revision}.yaml`), 'utf8');
  const list = /^server:\n((?: {2}- .+\n)+)/m.exec(yaml)?.[1] ?? '';
  return list.split('\n').flatMap((line) => (line ? [line.replace(/^ {2}- /, '').trim()] : []));
}

/** Runs `conformance server --url <url> …args` and reads the checks.json of every scenario it ran. */
export async function runConformance(url: string, args: string[]): Promise<ConformanceRun> {
  const out = await mkdtemp(join(tmpdir(), 'conformance-'));
  try {
    const code = await new Promise<number>((resolve) =>
      execFile(
        process.execPath,
        [join(PACKAGE, 'dist/index.js'), 'server', '--url', url, ...args, '--output-dir', out],
        { cwd: out, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
        (err) => resolve(err ? (typeof err.code === 'number' ? err.code : 1) : 0),
      ),
    );
    const scenarios = new Map<string, Check[]>();
    for (const dir of await readdir(out)) {
      // server-<scenario>-<ISO timestamp with dashes>
      const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(dir)?.[1];
      if (scenario)
        scenarios.set(scenario, JSON.parse(await readFile(join(out, dir, 'checks.json'), 'utf8')) as Check[]);
    }
    return { code, scenarios };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/** `scenario: check-id: message` for each check that did not pass and `excused` does not excuse. */
export function failures(run: ConformanceRun, excused: (scenario: string, check: Check) => boolean = () => false) {
  return [...run.scenarios].flatMap(([scenario, checks]) =>
    checks
      .filter((c) => c.status === 'FAILURE' && !excused(scenario, c))
      .map((c) => `${scenario}: ${c.id}: ${c.errorMessage ?? ''}`),
  );
}
