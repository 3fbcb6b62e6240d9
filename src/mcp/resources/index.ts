import type { CatalogResource } from '../mcp-server.js';
import { changelogMarkdown } from '../changelog.js';
import { APP_RESOURCES } from './apps.js';
import { DATA_DICTIONARY_URI, dataDictionary } from './data-dictionary.js';
import { WORKFLOWS_MD, WORKFLOWS_URI } from './workflows.js';

// The service's fixed resources (spec 1.7), each read fresh on every resources/read, and the
// MCP Apps' ui:// pages (apps.ts, an extension beyond the spec). The operation catalog's resource
// is listed beside these in catalog.ts.

const text = (
  uri: string,
  mimeType: string,
  body: () => string,
  listing: { name: string; title: string; description: string },
): CatalogResource => ({
  listing: { uri, mimeType, ...listing },
  read: () => ({ contents: [{ uri, mimeType, text: body() }] }),
});

export const SERVICE_RESOURCES: readonly CatalogResource[] = [
  text('resource://service/changelog.md', 'text/markdown', changelogMarkdown, {
    name: 'changelog',
    title: 'Changelog',
    description: 'Recent product changes, newest first',
  }),
  text(DATA_DICTIONARY_URI, 'application/json', () => JSON.stringify(dataDictionary(), null, 2), {
    name: 'data-dictionary',
    title: 'Data dictionary',
    description:
      'Every SQL view query_data reads: grain, columns with type, unit and nullability, freshness, joins with fan-out warnings (as describe_data answers per view)',
  }),
  text(WORKFLOWS_URI, 'text/markdown', () => WORKFLOWS_MD, {
    name: 'workflows',
    title: 'Workflows',
    description:
      'How an agent uses the service: audit with reads, dry-run an automation with run_automation, activate it, watch its actions and receipts',
  }),
  ...APP_RESOURCES,
];
