import type { Knex } from 'knex';
import type { OperationContract } from '../../src/catalog/operation.js';
import { migrateCatalog, storeCatalog } from '../../src/catalog/storage.js';
import { REPORT_OPERATIONS } from '../../src/domain/report/operations.js';

// A selected operation catalog holding the three reviewed report operations and one generic
// selling operation, as an acquire would store them (contracts trimmed to their identity).

export const GENERIC_OPERATION = 'sp_api:sellers:v1:getMarketplaceParticipations';

const contract = (key: string): OperationContract => {
  const [provider, family, version, operationId] = key.split(':') as [
    OperationContract['provider'],
    string,
    string,
    string,
  ];
  return {
    key,
    provider,
    family,
    version,
    operationId,
    method: key === GENERIC_OPERATION ? 'GET' : 'POST',
    path: `/${family}/${version}/${operationId}`,
    summary: null,
    description: null,
    deprecated: false,
    tags: [],
    parameters: [],
    request: null,
    responses: {},
  };
};

/** Stores and selects a catalog revision of those operations; returns the revision. */
export async function selectReportCatalog(db: Knex, revision: string, now: Date): Promise<string> {
  await migrateCatalog(db);
  await storeCatalog(
    db,
    {
      revision,
      source: 'test',
      documents: 1,
      gaps: [],
      operations: [...Object.keys(REPORT_OPERATIONS), GENERIC_OPERATION].map(contract),
      parts: new Map(),
    },
    now,
  );
  return revision;
}
