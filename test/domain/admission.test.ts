import { expect } from 'chai';
import { admissionEventSchemas, type IdempotencyKeyUsed } from '../../src/domain/admission/events.js';
import {
  admissionsDisabled,
  canonicalJson,
  creationStreamId,
  decideSwitch,
  defaultProductType,
  fingerprint,
  IDEMPOTENCY_TTL_MS,
  idempotencyVerdict,
  isQualifiedAction,
} from '../../src/domain/admission/rules.js';
import { DomainError } from '../../src/domain/shared/errors.js';

// The pure rules of admission: canonical fingerprints, the idempotency verdict, the operator's
// switch, patch_listing's product type default.

const at = '2026-11-20T10:00:00.000Z';
const used = (over: Partial<IdempotencyKeyUsed> = {}): IdempotencyKeyUsed => ({
  namespace: 'u',
  key: 'k',
  fingerprint: fingerprint({ a: 1 }),
  expires_at: new Date(Date.parse(at) + IDEMPOTENCY_TTL_MS).toISOString(),
  results: [],
  admissions: [],
  ...over,
});

describe('admission rules', () => {
  it('canonical JSON ignores key order at every level and keeps array order', () => {
    expect(canonicalJson({ b: [2, { y: 1, x: 2 }], a: 'z' })).to.equal(
      canonicalJson({ a: 'z', b: [2, { x: 2, y: 1 }] }),
    );
    expect(fingerprint({ p: [1, 2] })).to.not.equal(fingerprint({ p: [2, 1] }));
    expect(JSON.parse(canonicalJson({ b: 1, a: { d: null, c: 'x' } }))).to.deep.equal({ a: { c: 'x', d: null }, b: 1 });
  });

  it('an identical creation is the same account, parent, action and payload, whatever the key order', () => {
    const t = { type: 'Campaign', id: 'c1' };
    expect(creationStreamId('a', t, 'create_ad_group', { name: 'n', state: 'ENABLED' })).to.equal(
      creationStreamId('a', t, 'create_ad_group', { state: 'ENABLED', name: 'n' }),
    );
    expect(creationStreamId('a', t, 'create_ad_group', { name: 'n' })).to.not.equal(
      creationStreamId('a', { ...t, id: 'c2' }, 'create_ad_group', { name: 'n' }),
    );
    expect(creationStreamId('a', t, 'create_ad_group', { name: 'n' })).to.not.equal(
      creationStreamId('b', t, 'create_ad_group', { name: 'n' }),
    );
  });

  it('idempotency: admit when unused or expired, replay the same input, conflict on another', () => {
    const now = new Date(at);
    expect(idempotencyVerdict(null, 'f', now)).to.equal('admit');
    expect(idempotencyVerdict(used(), fingerprint({ a: 1 }), now)).to.equal('replay');
    expect(() => idempotencyVerdict(used(), fingerprint({ a: 2 }), now))
      .to.throw(DomainError)
      .with.property('code', 'idempotency_conflict');
    const expiry = new Date(Date.parse(used().expires_at));
    expect(idempotencyVerdict(used(), fingerprint({ a: 2 }), expiry), 'expired: a new use').to.equal('admit');
    expect(idempotencyVerdict(used(), fingerprint({ a: 1 }), new Date(expiry.getTime() - 1))).to.equal('replay');
  });

  it('the switch records a change only, and its state is the latest event', () => {
    const off = decideSwitch({ type: 'disable', reason: 'incident', by: 'ops', at }, false);
    expect(off).to.deep.equal([{ type: 'AdmissionsDisabled', data: { reason: 'incident', by: 'ops', at } }]);
    expect(decideSwitch({ type: 'disable', reason: null, by: 'ops', at }, true)).to.deep.equal([]);
    expect(decideSwitch({ type: 'enable', by: 'ops', at }, false)).to.deep.equal([]);
    const on = decideSwitch({ type: 'enable', by: 'ops', at }, true);
    expect(admissionsDisabled([])).to.equal(false);
    expect(admissionsDisabled(off)).to.equal(true);
    expect(admissionsDisabled([...off, ...on])).to.equal(false);
    for (const e of [...off, ...on])
      expect(admissionEventSchemas[e.type].safeParse(e.data).success, e.type).to.equal(true);
  });

  it('patch_listing product type: PRODUCT for offer-only patches, else the known type, else PRODUCT', () => {
    const offer = { path: '/attributes/purchasable_offer' };
    const title = { path: '/attributes/item_name' };
    expect(defaultProductType([offer, offer], 'SHOES')).to.equal('PRODUCT');
    expect(defaultProductType([offer, title], 'SHOES')).to.equal('SHOES');
    expect(defaultProductType([title], null)).to.equal('PRODUCT');
  });

  it('qualified catalog operations have four parts', () => {
    expect(isQualifiedAction('sp_api:listings:2021-08-01:patchListingsItem')).to.equal(true);
    expect(isQualifiedAction('update')).to.equal(false);
  });
});
