import { canonicalJson, sha256 } from '../shared/canonical.js';

export const fingerprint = (value: unknown): string => sha256(canonicalJson(value));

/** spec 4.5: PRODUCT when every patch is an offer patch, else the listing's known type, else PRODUCT. */
export function defaultProductType(patches: readonly { path: string }[], known: string | null): string {
  if (patches.length > 0 && patches.every((p) => p.path === '/attributes/purchasable_offer')) return 'PRODUCT';
  return known ?? 'PRODUCT';
}

/** A qualified catalog operation key (`<provider>:<family>:<version>:<operationId>`), as opposed to one of the six actions. */
export const isQualifiedAction = (action: string): boolean => action.split(':').length === 4;

/**
 * A listing patch value naming another marketplace than the listing's (spec 4.5 selectors are
 * derived from the target): its path in the payload, or null when every named one agrees.
 */
export function foreignMarketplaceSelector(
  payload: { patches?: unknown },
  marketplaceId: string,
): { path: string; given: string } | null {
  const patches = Array.isArray(payload.patches) ? (payload.patches as { value?: unknown }[]) : [];
  for (const [i, patch] of patches.entries()) {
    const values = Array.isArray(patch?.value) ? (patch.value as Record<string, unknown>[]) : [];
    for (const [j, value] of values.entries()) {
      const given = value?.marketplace_id;
      if (typeof given === 'string' && given !== marketplaceId)
        return { path: `payload.patches.${i}.value.${j}.marketplace_id`, given };
    }
  }
  return null;
}
