import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const DIST = fileURLToPath(new URL('../../src/', import.meta.url));

export interface Spawned {
  child: ChildProcess;
  /** every stdout line parsed as a pino record (non-JSON lines are kept as { msg }) */
  logs: Array<Record<string, unknown>>;
  stderr: () => string;
  exit: Promise<number | null>;
}

/**
 * Runs one of the built entry points (main.js, cli.js) on this Node, like the npm scripts do;
 * `node` adds options of Node's own (a benchmark's `--import`) and an IPC channel to the process.
 */
export function runEntry(
  entry: 'main.js' | 'cli.js',
  args: string[],
  env: Record<string, string>,
  node: { options?: string[]; ipc?: boolean } = {},
): Spawned {
  const options = ['--no-node-snapshot', '--enable-source-maps', ...(node.options ?? [])];
  const child = spawn(process.execPath, [...options, DIST + entry, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe', ...(node.ipc ? (['ipc'] as const) : [])],
  });
  const logs: Array<Record<string, unknown>> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      logs.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      logs.push({ msg: line });
    }
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  return { child, logs, stderr: () => err, exit };
}

/** Waits for a log record matching `pred`, failing early if the process exits first. */
export async function waitForLog(
  s: Spawned,
  pred: (r: Record<string, unknown>) => boolean,
  timeoutMs = 30000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = s.logs.find(pred);
    if (found) return found;
    if (s.child.exitCode !== null)
      throw new Error(`process exited (${s.child.exitCode}) before the expected log line; stderr: ${s.stderr()}`);
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for a log line; last lines: ${JSON.stringify(s.logs.slice(-5))}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs a CLI command to completion; resolves with its stdout, rejects on a non-zero exit. */
export async function cli(args: string[], env: Record<string, string>): Promise<string> {
  const s = runEntry('cli.js', args, env);
  const code = await s.exit;
  const out = s.logs.map((l) => l.msg).join('\n');
  if (code !== 0) throw new Error(`cli ${args.join(' ')} exited ${code}: ${s.stderr()}`);
  return out;
}

/** Polls `probe` until it returns a value (not undefined); a condition wait, not a sleep. */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 30000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// a port nobody listens on now, so a test knows where the service will answer before it does
export { freePort } from '../../src/infra/free-port.js';
