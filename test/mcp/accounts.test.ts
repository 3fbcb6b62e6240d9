import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DomainError } from '../../src/domain/shared/errors.js';
import { createDb, type Knex } from '../../src/infra/db.js';
import { isVendorOnly, type AccountView } from '../../src/projections/accounts/queries.js';
import { accountForWrite, accountsForRead, selectAccounts } from '../../src/mcp/accounts.js';
import type { ToolContext } from '../../src/mcp/tool.js';
import { prepareReadModels, project } from '../support/seed.js';

const account = (id: string, name: string): AccountView => ({
  id,
  name,
  entity_type: 'seller',
  selling: null,
  ads: null,
});
const one = account('11111111-1111-4111-8111-111111111111', 'North');
const two = account('22222222-2222-4222-8222-222222222222', 'South');

async function failure(fn: () => unknown): Promise<DomainError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a DomainError');
}

describe('account rules (spec 1.5, 4.2)', () => {
  it('a read without account covers every account', () => {
    expect(selectAccounts([one, two], undefined, 'read')).to.deep.equal([one, two]);
  });

  it('a named account narrows reads and writes to it (ids compare case-insensitively)', () => {
    expect(selectAccounts([one, two], two.id, 'read')).to.deep.equal([two]);
    expect(selectAccounts([one, two], two.id.toUpperCase(), 'write')).to.deep.equal([two]);
  });

  it('an unknown or foreign id is account_not_found, and the detail lists the existing ids', async () => {
    const err = await failure(() => selectAccounts([one, two], '99999999-9999-4999-8999-999999999999', 'read'));
    expect(err.code).to.equal('account_not_found');
    expect(err.detail).to.contain(one.id).and.to.contain(two.id);
    expect(err.extra).to.deep.equal({ accounts: [one.id, two.id] });
  });

  it('a write without account is account_required once two accounts are connected', async () => {
    const err = await failure(() => selectAccounts([one, two], undefined, 'write'));
    expect(err.code).to.equal('account_required');
    expect(err.detail).to.contain(one.id).and.to.contain(two.id);
  });

  it('a write without account goes to the only account when there is one', () => {
    expect(selectAccounts([one], undefined, 'write')).to.deep.equal([one]);
  });

  it('a write with no account connected is account_not_found', async () => {
    expect((await failure(() => selectAccounts([], undefined, 'write'))).code).to.equal('account_not_found');
  });
});

describe('account rules on the read model', () => {
  const user = randomUUID();
  const [mine1, mine2, foreign] = [randomUUID(), randomUUID(), randomUUID()];
  const vendorUser = randomUUID();
  let db: Knex;
  let ctx: ToolContext;

  before(async () => {
    db = createDb(process.env.DATABASE_URL!);
    await prepareReadModels(db);
    await project(db, [
      { type: 'AccountRegistered', data: { account_id: mine1, user_id: user, name: 'One', entity_type: 'seller' } },
      { type: 'AccountRegistered', data: { account_id: mine2, user_id: user, name: 'Two', entity_type: 'vendor' } },
      {
        type: 'AccountRegistered',
        data: { account_id: foreign, user_id: randomUUID(), name: 'Elsewhere', entity_type: 'seller' },
      },
      {
        type: 'AccountRegistered',
        data: { account_id: randomUUID(), user_id: vendorUser, name: 'Vendor', entity_type: 'vendor' },
      },
    ]);
    ctx = { db, userId: user, endpoint: 'mcp', requestId: 'r', logger: console, now: () => new Date() };
  });
  after(() => db.destroy());

  it("reads cover the caller's accounts only", async () => {
    expect((await accountsForRead(ctx, undefined)).map((a) => a.id).sort()).to.deep.equal([mine1, mine2].sort());
  });

  it("another user's account id reads as missing", async () => {
    const err = await failure(() => accountsForRead(ctx, foreign));
    expect(err.code).to.equal('account_not_found');
    const listed = err.detail.split('existing accounts:')[1]!;
    expect(listed).to.contain(mine1).and.to.contain(mine2).and.not.to.contain(foreign);
  });

  it('a write needs account with two accounts, and takes the one named', async () => {
    expect((await failure(() => accountForWrite(ctx, undefined))).code).to.equal('account_required');
    expect((await accountForWrite(ctx, mine2)).name).to.equal('Two');
  });

  it('a user is vendor-only when every account of the user is a vendor account (seller tools are hidden then)', async () => {
    expect(await isVendorOnly(db, user), 'a seller and a vendor account').to.equal(false);
    expect(await isVendorOnly(db, vendorUser)).to.equal(true);
    expect(await isVendorOnly(db, randomUUID()), 'no account at all').to.equal(false);
  });
});
