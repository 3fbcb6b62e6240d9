import { viewDefinitions } from '../../projections/views/registry.js';
import { describeView, overview } from '../tools/describe_data.js';

// resource://service/data-dictionary.json (spec 1.7): every view query_data reads, each exactly
// as describe_data describes it, and the join graph: built from the views registry by
// describe_data's own functions, so the two cannot disagree.

export const DATA_DICTIONARY_URI = 'resource://service/data-dictionary.json';

export function dataDictionary() {
  return {
    about:
      'The SQL views query_data reads (one read-only SELECT). Money columns are integer minor units of the row currency: never sum across currencies. An empty result can mean data not yet synced: describe_data with coverage: true shows what each account has. Each view below is what describe_data answers with `view`.',
    views: viewDefinitions.map((def) => describeView(def, viewDefinitions)),
    joins: overview(viewDefinitions).joins,
  };
}
