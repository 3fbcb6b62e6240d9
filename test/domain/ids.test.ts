import { expect } from 'chai';
import { z } from 'zod';
import { newOrderedId } from '../../src/domain/shared/ids.js';

describe('ordered ids (receipts keep the order they were admitted in)', () => {
  it('are version 7 uuids, strictly increasing even thousands within one millisecond', () => {
    const ids = Array.from({ length: 5000 }, () => newOrderedId());
    for (const id of ids) expect(z.uuid().safeParse(id).success, id).to.equal(true);
    expect(ids[0]![14]).to.equal('7');
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!, `${ids[i - 1]} < ${ids[i]}`).to.equal(true);
  });
});
