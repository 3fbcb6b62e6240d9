import type { EntityType } from '../../domain/account/events.js';
import { hiddenFrom, type ViewDefinition } from './definition.js';
import { vMarketplaces } from './v_marketplaces.js';
import { vSellerEconomics } from './v_seller_economics.js';
import { vCatalogItems } from './v_catalog_items.js';
import { vListings } from './v_listings.js';
import { vListingMutations } from './v_listing_mutations.js';
import { vSalesLines } from './v_sales_lines.js';
import { vAdPerformance } from './v_ad_performance.js';
import { vAdvertisedProducts } from './v_advertised_products.js';
import { vSearchQueryPerformance } from './v_search_query_performance.js';
import { vCouponPerformance } from './v_coupon_performance.js';
import { vPromotionPerformance } from './v_promotion_performance.js';
import { vVendorMetrics } from './v_vendor_metrics.js';

/**
 * Every view `query_data` can query and `describe_data` describes: one import per view
 * file; add yours to the array. A spec view without a file yet is simply absent.
 */
export const viewDefinitions: ViewDefinition[] = [
  vMarketplaces,
  vSellerEconomics,
  vSalesLines,
  vListings,
  vListingMutations,
  vCatalogItems,
  vAdPerformance,
  vAdvertisedProducts,
  vSearchQueryPerformance,
  vCouponPerformance,
  vPromotionPerformance,
  vVendorMetrics,
];

/** The registered views hidden from a caller whose accounts in scope are these: name → why (hiddenFrom). */
export function hiddenViews(accounts: ReadonlyArray<{ entity_type: EntityType }>): Map<string, string> {
  const kinds = new Set(accounts.map((a) => a.entity_type));
  return new Map(
    viewDefinitions.flatMap((d) => {
      const why = hiddenFrom(d.audience, kinds);
      return why ? [[d.name, why] as const] : [];
    }),
  );
}
