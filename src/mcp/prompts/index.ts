import type { CatalogPrompt } from '../mcp-server.js';
import { adWasteAudit } from './ad_waste_audit.js';
import { marginRepricing } from './margin_repricing.js';
import { restockProtection } from './restock_protection.js';

/** The service's prompts (spec 1.8), in listing order. */
export const SERVICE_PROMPTS: readonly CatalogPrompt[] = [adWasteAudit, marginRepricing, restockProtection];
