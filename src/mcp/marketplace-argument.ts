import { z } from 'zod';
import { marketplaceById } from '../domain/shared/marketplaces.js';

/** `marketplace_id`: a marketplace the selling API serves (src/domain/shared/marketplaces.ts). */
export const marketplaceIdArgument = z
  .string()
  .trim()
  .refine((id) => marketplaceById(id) !== undefined, {
    error: (issue) =>
      `'${String(issue.input)}' is not a marketplace id (e.g. ATVPDKIKX0DER for Amazon.com; see v_marketplaces)`,
  })
  .optional()
  .describe('a marketplace id, e.g. ATVPDKIKX0DER (Amazon.com)');
