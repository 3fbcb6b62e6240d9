import type { FastifyRequest } from 'fastify';

/**
 * The origin links, redirects and challenges are written under: the configured public one (the
 * service behind a proxy), else the one the request came to.
 */
export const requestBaseUrl =
  (configured: string | undefined) =>
  (req: FastifyRequest): string =>
    (configured ?? `${req.protocol}://${req.host}`).replace(/\/+$/, '');
