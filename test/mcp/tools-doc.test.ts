import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { renderToolsDoc } from '../../src/mcp/tools-doc.js';
import { TOOLS } from '../../src/mcp/tools/index.js';

describe('docs/tools.md', () => {
  const rendered = renderToolsDoc(TOOLS);

  it('is the rendering of the served tool table (run `npm run docs:tools` after changing a tool)', () => {
    const committed = readFileSync(new URL('../../../docs/tools.md', import.meta.url), 'utf8');
    expect(committed).to.equal(rendered);
  });

  it('names every tool, its kind and its nested arguments with their bounds', () => {
    for (const tool of TOOLS) expect(rendered).to.include(`## \`${tool.name}\``);
    expect(rendered).to.include('| [`queue_mutations`](#queue_mutations) | write |');
    expect(rendered).to.match(/\| `mutations\[\]\.target\.type` \| string \| yes \|/);
    expect(rendered).to.match(
      /\| `mutations` \| object\[\] \| yes \| 1 to 50 mutation requests \(at least 1, at most 50\) \|/,
    );
    expect(rendered).to.include('`/mcp` only (not on `/demo/mcp`)');
  });
});
