import { SP_RESOURCE_NAMES } from '../../marketplace/clients/ads-sp-types.js';
import { adsContext } from './ads-context.js';
import { syncWith } from './job.js';
import { syncScope } from './scope.js';
import { SP_ENTITY_DATASETS } from '../../domain/observation/datasets.js';

// Sponsored Products entities: every resource of every profile, read completely page by page
// (one dataset per resource, scope = the provider profile id), archived entities included so a
// campaign archived since the last read shows as archived rather than vanishing.

/** Entities per list page: one page event each. */
const PAGE_SIZE = 500;

export const adsEntitiesSync = syncWith(adsContext, {
  name: 'ads-entities',
  everyMs: 3_600_000,
  async run(deps, account_id, ads) {
    let recorded = 0;
    for (const { provider_profile_id: profileId } of ads.profiles) {
      for (const resource of SP_RESOURCE_NAMES) {
        const pages = ads.client.sp.pages(profileId, resource, {
          maxResults: PAGE_SIZE,
          stateFilter: { include: ['ENABLED', 'PAUSED', 'ARCHIVED'] },
        });
        recorded += (
          await syncScope(
            deps.ctx,
            { account_id, dataset: SP_ENTITY_DATASETS[resource], scope: profileId },
            pages,
            deps.now,
          )
        ).recorded;
      }
    }
    return { recorded };
  },
});
