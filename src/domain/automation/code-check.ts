import { parse, type Function as FunctionNode, type Node, type Program } from 'acorn';
import { DomainError } from '../shared/errors.js';

// spec 4.11.1: saving checks the syntax and that `handle(event, context)` is declared with
// exactly two parameters, and never runs the code. acorn only parses, so nothing the code says
// can execute here. The forms accepted are in
// docs/decisions/033-automation-code-check.md.

/** spec 8: code size. */
export const MAX_CODE_BYTES = 100_000;

const invalid = (message: string) => new DomainError('invalid', `code: ${message}`, { argument: 'code' });

export function checkCodeSize(code: string): void {
  const bytes = Buffer.byteLength(code, 'utf8');
  if (bytes > MAX_CODE_BYTES)
    throw new DomainError('code_too_large', `code: ${bytes} bytes is over the limit of ${MAX_CODE_BYTES} bytes`, {
      argument: 'code',
    });
}

function syntaxTree(code: string): Program {
  try {
    return parse(code, { ecmaVersion: 'latest', sourceType: 'script', locations: true });
  } catch (err) {
    if (!(err instanceof SyntaxError) || !('loc' in err)) throw err;
    const { line, column } = err.loc as { line: number; column: number };
    // acorn's message ends in "(line:column)"; the detail states the place once, column 1-based as editors count
    const message = err.message.replace(/ \(\d+:\d+\)$/, '');
    throw invalid(`line ${line}, column ${column + 1}: ${message}`);
  }
}

/** The function the top level binds to `handle` (the last binding wins, as it would at run time). */
function handleFunction(program: Program): FunctionNode | Node | null {
  let found: FunctionNode | Node | null = null;
  for (const statement of program.body) {
    if (statement.type === 'FunctionDeclaration' && statement.id.name === 'handle') found = statement;
    if (statement.type === 'VariableDeclaration')
      for (const d of statement.declarations)
        if (d.id.type === 'Identifier' && d.id.name === 'handle') found = d.init ?? d;
  }
  return found;
}

const isFunction = (node: Node): node is FunctionNode =>
  node.type === 'FunctionDeclaration' || node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression';

/** Size first (a huge text is refused before it is parsed), then syntax, then the handler's signature. */
export function checkAutomationCode(code: string): void {
  checkCodeSize(code);
  const fn = handleFunction(syntaxTree(code));
  if (!fn) throw invalid('no function named handle; declare function handle(event, context) { ... } at the top level');
  const at = `line ${fn.loc!.start.line}`;
  if (!isFunction(fn)) throw invalid(`${at}: handle must be a function, declared as function handle(event, context)`);
  if (fn.generator) throw invalid(`${at}: handle must not be a generator function`);
  const rest = fn.params.find((p) => p.type === 'RestElement');
  if (rest) throw invalid(`${at}: handle must name its 2 parameters (event, context), not a rest parameter`);
  if (fn.params.length !== 2)
    throw invalid(
      `handle must be declared with exactly 2 parameters (event, context); it has ${fn.params.length} (${at})`,
    );
}
