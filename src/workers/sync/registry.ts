import type { SyncJobDefinition } from './job.js';

/** Every data sync the worker schedules per connected account. One import per sync; add yours. */
export const syncJobs: SyncJobDefinition[] = [];
