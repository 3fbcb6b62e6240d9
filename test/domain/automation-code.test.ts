import { expect } from 'chai';
import { checkAutomationCode, MAX_CODE_BYTES } from '../../src/domain/automation/code-check.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import { SELECTABLE_STREAM_TYPES } from '../../src/domain/stream/types.js';
import { automationTemplate } from '../../src/runtime/contracts/templates.js';

// spec 4.11.1: what saving accepts and how it says what is wrong (never running the code).

function refusal(code: string): DomainError {
  try {
    checkAutomationCode(code);
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected the code to be refused');
}

describe('automation code check on save (spec 4.11.1)', () => {
  it('accepts the declared forms of handle(event, context)', () => {
    for (const code of [
      'function handle(event, context) {}',
      'async function handle(event, context) { await context.store.get("k"); }',
      'const handle = (event, context) => {};',
      'let handle = async ({ Payload }, context = {}) => Payload;',
      'var handle = function (event, context) {};',
      'function helper(x) { return x; }\nfunction handle(e, c) { helper(e); }',
    ])
      expect(() => checkAutomationCode(code), code).not.to.throw();
  });

  it("every event type's template (create_automation's default code) passes the check", () => {
    for (const t of SELECTABLE_STREAM_TYPES)
      expect(() => checkAutomationCode(automationTemplate(t.code)!), t.code).not.to.throw();
  });

  it('never runs the code it checks', () => {
    (globalThis as Record<string, unknown>).ranOnSave = false;
    checkAutomationCode('globalThis.ranOnSave = true;\nfunction handle(event, context) {}');
    expect((globalThis as Record<string, unknown>).ranOnSave).to.equal(false);
  });

  it('a syntax error names its line and 1-based column', () => {
    const err = refusal('function handle(event, context) {\n  const x = 1;\n  let = = 2;\n}');
    expect(err.code).to.equal('invalid');
    expect(err.detail).to.equal('code: line 3, column 9: Unexpected token');
    expect(err.extra).to.deep.equal({ argument: 'code' });
  });

  it('module syntax is refused: the code is a script', () => {
    expect(refusal('export function handle(event, context) {}').detail).to.match(/^code: line 1, column 1: /);
  });

  it('no handle, a handle that is not a function, or a nested one', () => {
    expect(refusal('function run(event, context) {}').detail).to.match(/^code: no function named handle/);
    expect(refusal('{ function handle(event, context) {} }').detail).to.match(/^code: no function named handle/);
    expect(refusal('const handle = 42;').detail).to.equal(
      'code: line 1: handle must be a function, declared as function handle(event, context)',
    );
    expect(refusal('let handle;').detail).to.match(/handle must be a function/);
  });

  it('the wrong number of parameters, a rest parameter or a generator', () => {
    expect(refusal('function handle(event) {}').detail).to.equal(
      'code: handle must be declared with exactly 2 parameters (event, context); it has 1 (line 1)',
    );
    expect(refusal('\nconst handle = (a, b, c) => {};').detail).to.match(/it has 3 \(line 2\)$/);
    expect(refusal('function handle(event, ...rest) {}').detail).to.match(/not a rest parameter/);
    expect(refusal('function* handle(event, context) {}').detail).to.match(/not be a generator/);
  });

  it('the last top-level binding of handle is the one checked', () => {
    expect(refusal('function handle(a, b) {}\nfunction handle(a) {}').detail).to.match(/it has 1 \(line 2\)/);
  });

  it('size is checked before parsing: an oversized text is code_too_large, not a syntax error', () => {
    const err = refusal('(('.repeat(MAX_CODE_BYTES / 2 + 1));
    expect(err.code).to.equal('code_too_large');
    expect(err.detail).to.equal(`code: ${MAX_CODE_BYTES + 2} bytes is over the limit of ${MAX_CODE_BYTES} bytes`);
  });
});
