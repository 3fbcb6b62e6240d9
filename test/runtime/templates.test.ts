import { parse, type Node } from 'acorn';
import { expect } from 'chai';
import { SELECTABLE_STREAM_TYPES } from '../../src/domain/stream/types.js';
import { streamContract } from '../../src/runtime/contracts/index.js';
import { automationTemplate } from '../../src/runtime/contracts/templates.js';

// The default code of each type parses, defines handle(event, context), reads only fields its
// contract lists, and queues nothing.

type AnyNode = Node & Record<string, any>;

/** Every node of the tree. */
function* nodes(node: AnyNode): Generator<AnyNode> {
  yield node;
  for (const value of Object.values(node))
    for (const child of Array.isArray(value) ? value : [value])
      if (child && typeof child === 'object' && typeof child.type === 'string') yield* nodes(child);
}

/** `event.a.b` / `context.a?.b` as ['event', 'a.b'], for the outermost member expressions. */
function memberPaths(program: AnyNode): Array<[string, string]> {
  const inner = new Set<AnyNode>();
  const paths: Array<[string, string]> = [];
  for (const node of nodes(program)) {
    if (node.type !== 'MemberExpression' || inner.has(node)) continue;
    const keys: string[] = [];
    let at: AnyNode = node;
    while (at.type === 'MemberExpression' && !at.computed) {
      keys.unshift(at.property.name);
      inner.add(at.object);
      at = at.object;
    }
    if (at.type === 'Identifier' && (at.name === 'event' || at.name === 'context'))
      paths.push([at.name, keys.join('.')]);
  }
  return paths;
}

describe('automation templates', () => {
  for (const { code } of SELECTABLE_STREAM_TYPES)
    it(`${code}: handle(event, context) reading only its contract's fields, queueing nothing`, () => {
      const source = automationTemplate(code)!;
      const program = parse(source, { ecmaVersion: 2022 }) as AnyNode;
      const handle = program.body.filter((s: AnyNode) => s.type === 'FunctionDeclaration' && s.id.name === 'handle');
      expect(handle, 'one handle declaration').to.have.length(1);
      expect(handle[0].params.map((p: AnyNode) => p.name)).to.deep.equal(['event', 'context']);
      const contract = streamContract(code)!;
      const known = {
        event: new Set(contract.event.fields.map((f) => f.path)),
        context: new Set(contract.context.fields.map((f) => f.path)),
      };
      const reads = memberPaths(program);
      expect(reads.filter(([root]) => root === 'event').length, 'reads event fields').to.be.greaterThan(0);
      expect(reads.filter(([root]) => root === 'context').length, 'reads context fields').to.be.greaterThan(0);
      for (const [root, path] of reads)
        expect(known[root as 'event' | 'context'].has(path), `${root}.${path} is in the contract`).to.equal(true);
      expect(
        reads.some(([, path]) => path.startsWith('mutations')),
        'queues nothing',
      ).to.equal(false);
    });

  it('has no template for the internal types or unknown codes', () => {
    expect(automationTemplate('REPORT_PROCESSING_FINISHED')).to.equal(undefined);
    expect(automationTemplate('NOPE')).to.equal(undefined);
  });
});
