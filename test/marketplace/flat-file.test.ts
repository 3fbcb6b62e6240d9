import { expect } from 'chai';
import { parseFlatFile } from '../../src/marketplace/clients/flat-file.js';

async function* chunks(...parts: string[]): AsyncIterable<string> {
  yield* parts;
}

async function all(batches: AsyncIterable<Record<string, string>[]>): Promise<Record<string, string>[][]> {
  const out: Record<string, string>[][] = [];
  for await (const batch of batches) out.push(batch);
  return out;
}

describe('flat-file reports, parsed as their text arrives', () => {
  it('joins rows cut between chunks, takes CRLF and short rows, and yields batches of the given size', async () => {
    const text = 'sku\tprice\tqty\r\nA\t1.00\t3\r\nB\t2.5\nC\t3\t1\nD\t4\t2\n';
    // cut everywhere: inside a field, between \r and \n, inside the header
    const batches = await all(
      parseFlatFile(chunks(text.slice(0, 5), text.slice(5, 17), text.slice(17, 29), text.slice(29)), 'doc-1', 2),
    );
    expect(batches.map((b) => b.length)).to.deep.equal([2, 2]);
    expect(batches.flat()).to.deep.equal([
      { sku: 'A', price: '1.00', qty: '3' },
      { sku: 'B', price: '2.5', qty: '' },
      { sku: 'C', price: '3', qty: '1' },
      { sku: 'D', price: '4', qty: '2' },
    ]);
  });

  it('a last row without a line break is read; a row longer than the header is an invalid response', async () => {
    expect((await all(parseFlatFile(chunks('a\tb\n1\t2'), 'doc-2'))).flat()).to.deep.equal([{ a: '1', b: '2' }]);
    const error = await all(parseFlatFile(chunks('a\tb\n1\t2\t3\n'), 'doc-3')).catch((e: unknown) => e);
    expect(error).to.include({ code: 'invalid_response' });
    expect(String((error as Error).message)).to.match(/doc-3: row 1 has 3 fields, the header 2/);
  });
});
