import { expect } from 'chai';
import { z } from 'zod';
import { adGroupTargetCreate } from '../../src/domain/mutation/payloads.js';
import { firstIssue } from '../../src/domain/shared/issues.js';

// The issue a refusal's detail names, on the real payload schemas: for a value fitting none of a
// union's shapes, the shape it came nearest and why, not zod's "Invalid input".

describe('firstIssue', () => {
  const named = (schema: z.ZodType, value: unknown) => {
    const parsed = schema.safeParse(value);
    expect(parsed.success, 'the value is refused').to.equal(false);
    const { path, message } = firstIssue(parsed.error!.issues);
    return `${path.join('.')}: ${message}`;
  };
  const target = (keywordTarget: Record<string, unknown>) => ({
    targetType: 'KEYWORD',
    state: 'ENABLED',
    negative: true,
    targetDetails: { keywordTarget },
  });

  it("names the union's nearest shape: a keyword target's match type", () => {
    expect(named(adGroupTargetCreate, target({ keyword: 'cheap', matchType: 'NEGATIVE_EXACT' }))).to.equal(
      'targetDetails.keywordTarget.matchType: Invalid option: expected one of "EXACT"|"PHRASE"|"BROAD"',
    );
  });

  it('prefers the shape the value has the keys of, though it fails there more often than a shape it is not', () => {
    // three faults inside keywordTarget; productTarget and productCategoryTarget fail twice each, on their keys
    expect(named(adGroupTargetCreate, target({ keyword: '', matchType: 'NEGATIVE_EXACT', bid: 1 }))).to.match(
      /^targetDetails\.keywordTarget/,
    );
  });

  it('names a plain issue as it is, and a union with no option issues by its own', () => {
    expect(named(z.object({ a: z.number() }), { a: 'x' })).to.equal(
      'a: Invalid input: expected number, received string',
    );
    const tagged = z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('a') }),
      z.object({ kind: z.literal('b') }),
    ]);
    expect(named(tagged, { kind: 'c' })).to.match(/^kind: /);
  });
});
