import { expect } from 'chai';
import { field, fieldTables, maybe, money } from '../../src/runtime/contracts/context/field.js';

// The context modules' plain field tables are JSON read through fieldTables: an entry reads as
// the constructors write it (same keys, same order), and a malformed entry is refused at load.

describe('context field tables', () => {
  it('reads entries as field, maybe and money make them, "major" as money in major units', () => {
    const tables = fieldTables({
      receipt: [
        { path: 'id', type: 'string', description: 'receipt id' },
        { path: 'outcome', type: 'string', nullable: true, optional: true, description: 'null until a result' },
        { path: 'price', type: 'number', nullable: true, unit: 'major', description: 'your price' },
        { path: 'size', type: 'number', unit: 'bytes', description: 'artifact size' },
        { path: 'deals', type: 'array', nullable: true, open: true, description: 'the report entries' },
      ],
    });
    expect(JSON.stringify(tables.receipt)).to.equal(
      JSON.stringify([
        field('id', 'string', 'receipt id'),
        maybe('outcome', 'string', 'null until a result', { optional: true }),
        money('price', 'your price', true),
        field('size', 'number', 'artifact size', { unit: 'bytes' }),
        maybe('deals', 'array', 'the report entries', { open: true }),
      ]),
    );
  });

  it('refuses a malformed entry', () => {
    const malformed: unknown[] = [
      { path: 'id', type: 'text', description: 'not a field type' },
      { path: 'id', type: 'string' },
      { path: '', type: 'string', description: 'no path' },
      { path: 'id', type: 'string', nullable: false, description: 'flags are written only when true' },
      { path: 'id', type: 'string', description: 'x', nulable: true },
    ];
    for (const entry of malformed) expect(() => fieldTables({ t: [entry] }), JSON.stringify(entry)).to.throw();
    expect(() => fieldTables({ t: [] }), 'an empty table').to.throw();
  });
});
