// Spec 3.4, 3.5: a listing the marketplace reports DELETED stays in list_listings (status
// DELETED) until the service removes it, but takes no changes: a request on it would be blocked
// before it was sent. So a new one is refused at once, with a detail that agrees with what
// list_listings shows, never as a target or listing that does not exist.

/** The detail of that refusal; `at` is the argument path (`mutations[0].target`, `sku`). */
export function deletedListingDetail(at: string, listing: { sku: string; marketplace_id: string }): string {
  return `${at}: the listing with SKU '${listing.sku}' in marketplace ${listing.marketplace_id} has status DELETED at the marketplace (list_listings shows it until the service removes it); a deleted listing takes no changes`;
}
