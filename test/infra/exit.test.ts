import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect } from 'chai';

const EXIT_MODULE = new URL('../../src/infra/exit.js', import.meta.url).href;

/** Runs `body` as a module in a child Node with exitWhenIdle imported; resolves with its code and stdout. */
async function child(body: string): Promise<{ code: number | null; out: string }> {
  const code = `import { exitWhenIdle } from ${JSON.stringify(EXIT_MODULE)};\n${body}`;
  const p = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  p.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const [exitCode] = (await once(p, 'exit')) as [number | null];
  return { code: exitCode, out };
}

describe('exitWhenIdle', function () {
  this.timeout(20_000);

  // 'beforeExit' is emitted only when the loop empties, never on process.exit()
  it('lets the process end on its own, with the code', async () => {
    const { code, out } = await child(
      `process.once('beforeExit', () => console.log('natural')); exitWhenIdle(3, 60_000);`,
    );
    expect(out.trim()).to.equal('natural');
    expect(code).to.equal(3);
  });

  it('still ends, with the code, when a handle stays open', async () => {
    const { code } = await child(`setInterval(() => undefined, 1_000); exitWhenIdle(3, 200);`);
    expect(code).to.equal(3);
  });
});
