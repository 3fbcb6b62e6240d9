import { expect } from 'chai';
import { defaultProductType, fingerprint, isQualifiedAction } from '../../src/domain/admission/rules.js';
import { canonicalJson } from '../../src/domain/shared/canonical.js';

// The pure rules of admission: canonical fingerprints, patch_listing's product type default.
// Its deciders have their own specs (admission-switch, idempotency, creation-guard).

describe('admission rules', () => {
  it('canonical JSON ignores key order at every level and keeps array order', () => {
    expect(canonicalJson({ b: [2, { y: 1, x: 2 }], a: 'z' })).to.equal(
      canonicalJson({ a: 'z', b: [2, { x: 2, y: 1 }] }),
    );
    expect(fingerprint({ p: [1, 2] })).to.not.equal(fingerprint({ p: [2, 1] }));
    expect(JSON.parse(canonicalJson({ b: 1, a: { d: null, c: 'x' } }))).to.deep.equal({ a: { c: 'x', d: null }, b: 1 });
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
