import type { Projection } from './projection.js';

/**
 * Every projection the service runs, migrates and can rebuild. One import per projection;
 * add yours to the array.
 */
export const projections: Projection[] = [];
