import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { lookupsOnce, lookupsTogether, readModelLookups } from '../../src/commands/admission/lookups.js';
import { listingId } from '../../src/domain/observation/ids.js';
import { resolveListings } from '../../src/projections/admission/queries.js';
import { startAutomationWorld, type AutomationWorld } from '../support/automation-world.js';

// Admission's lookups for calls decided side by side (a live wave's admissions): every answer as
// the lookup alone gives it, in fewer statements.

describe('admission lookups taken together', function () {
  this.timeout(300_000);
  let w: AutomationWorld;
  let ids: string[];

  before(async () => {
    w = await startAutomationWorld();
    const rows: Array<{ marketplace_id: string; sku: string }> = await w.h.db
      .withSchema('rm')
      .from('listing_current')
      .where({ account_id: w.account })
      .orderBy(['marketplace_id', 'sku'])
      .limit(3)
      .select('marketplace_id', 'sku');
    expect(rows).to.have.length(3);
    const [a, b, c] = rows.map((r) => listingId(w.account, r.marketplace_id, r.sku));
    // in any case, repeated, another account's id, unknown, not an id at all
    ids = [a!, b!.toUpperCase(), c!, a!, randomUUID(), 'not-a-listing', ` ${b!} `.trim()];
  });
  after(() => w?.close());

  const alone = (accounts: string[]) =>
    Promise.all(ids.map((id) => readModelLookups(w.h.db).resolveTarget(accounts, { type: 'Listing', id })));

  it('resolveListings answers each id as resolveTarget does, in the order given', async () => {
    const expected = await alone([w.account]);
    expect(expected.filter((r) => r !== null)).to.have.length(5);
    expect(await resolveListings(w.h.db, [w.account], ids)).to.deep.equal(expected);
    // on accounts the listings are not on: none found
    expect(await resolveListings(w.h.db, [randomUUID()], ids)).to.deep.equal(ids.map(() => null));
  });

  it('lookupsTogether: each Listing target as resolved alone, the switch read once for every call', async () => {
    const together = lookupsTogether(w.h.db);
    const answers = await Promise.all(ids.map((id) => together.resolveTarget([w.account], { type: 'Listing', id })));
    expect(answers).to.deep.equal(await alone([w.account]));
    const [first, second] = [together.paused(), together.paused()];
    expect(first).to.equal(second);
    expect(await first).to.deep.equal(await readModelLookups(w.h.db).paused());
  });

  it('lookupsOnce (a dry run asks ahead): every answer as read alone, each question read once, a failure answers its asker', async () => {
    const once = lookupsOnce(readModelLookups(w.h.db));
    const answers = await Promise.all(ids.map((id) => once.resolveTarget([w.account], { type: 'Listing', id })));
    expect(answers).to.deep.equal(await alone([w.account]));
    const target = { type: 'Listing' as const, id: ids[0]! };
    expect(once.resolveTarget([w.account], target)).to.equal(once.resolveTarget([w.account], target));
    // the same listing asked on other accounts is another question
    expect(await once.resolveTarget([randomUUID()], target)).to.equal(null);
    expect(once.paused()).to.equal(once.paused());
    expect(await once.paused()).to.deep.equal(await readModelLookups(w.h.db).paused());
    const down = lookupsOnce({ ...readModelLookups(w.h.db), paused: () => Promise.reject(new Error('down')) });
    down.paused(); // asked ahead, unanswered: no unhandled rejection
    expect(await down.paused().catch((err: Error) => err.message)).to.equal('down');
  });
});
