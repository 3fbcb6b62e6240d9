import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ProfileAds } from './sp-generate.js';
import type { AdsState } from './sp-state.js';

// What every profile-scoped ads route shares: the Amazon-Advertising-API-Scope header naming
// one of the seller's profiles, vendor JSON bodies, and the v3 error body `{ code, message }`.

export const v3Error = (code: string, message: string) => ({ code, message });

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const profiles = new WeakMap<FastifyRequest, ProfileAds>();

/** preHandler: refuses requests without a scope of this seller's (after the token check). */
export function requireScope(state: AdsState) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const scope = header(request, 'amazon-advertising-api-scope');
    if (!scope)
      return reply.code(400).send(v3Error('INVALID_ARGUMENT', 'Amazon-Advertising-API-Scope header is missing'));
    const ads = state.profile(scope);
    if (!ads) return reply.code(401).send(v3Error('UNAUTHORIZED', `Not authorized to access scope ${scope}`));
    profiles.set(request, ads);
  };
}

/** The profile `requireScope` found for this request. */
export function scopedProfile(request: FastifyRequest): ProfileAds {
  const ads = profiles.get(request);
  if (!ads) throw new Error('ads route without requireScope');
  return ads;
}

/** True when the request's Content-Type is `mediaType`; otherwise answers 415. */
export function hasMediaType(request: FastifyRequest, reply: FastifyReply, mediaType: string): boolean {
  const sent = (header(request, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (sent === mediaType.toLowerCase()) return true;
  void reply.code(415).send(v3Error('UNSUPPORTED_MEDIA_TYPE', `Content-Type must be ${mediaType}`));
  return false;
}

/** Parses the APIs' vendor media types (application/vnd.…+json) as JSON, in this plugin scope. */
export function acceptVendorJson(scope: FastifyInstance): void {
  scope.addContentTypeParser(/^application\/vnd\.[\w.-]+\+json/i, { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, body === '' ? undefined : JSON.parse(body as string));
    } catch {
      done(Object.assign(new Error('request body is not JSON'), { statusCode: 400 }), undefined);
    }
  });
}
