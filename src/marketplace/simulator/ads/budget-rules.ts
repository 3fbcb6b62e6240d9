import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import { scopedProfile, v3Error } from './scope.js';

// GET /sp/budgetRules (GetSPBudgetRulesForAdvertiser): the advertiser's budget rules, read in
// one of its profiles' scope, paged by pageSize (1 to 30, required) and nextToken. Three
// fixed rules per profile, enough to page through.

const RULES = [
  { name: 'Prime Day boost', percent: 50, type: 'SCHEDULE' },
  { name: 'Weekend boost', percent: 20, type: 'SCHEDULE' },
  { name: 'High ROAS boost', percent: 30, type: 'PERFORMANCE' },
];
const CREATED = Date.parse('2026-01-05T00:00:00Z');

export function registerBudgetRules(scope: FastifyInstance, guards: preHandlerAsyncHookHandler[]): void {
  scope.get<{ Querystring: { pageSize?: string; nextToken?: string } }>(
    '/sp/budgetRules',
    { config: { api: 'ads' }, preHandler: guards },
    async (request, reply) => {
      const pageSize = Number(request.query.pageSize);
      if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 30)
        return reply.code(400).send(v3Error('INVALID_ARGUMENT', 'pageSize must be an integer from 1 to 30'));
      const offset = request.query.nextToken === undefined ? 0 : Number(request.query.nextToken);
      if (!Number.isInteger(offset) || offset < 0 || offset >= RULES.length)
        return reply.code(400).send(v3Error('INVALID_ARGUMENT', 'nextToken is invalid'));
      const { profileId } = scopedProfile(request);
      const page = RULES.slice(offset, offset + pageSize).map((r, i) => ({
        ruleId: `${profileId}-rule-${offset + i + 1}`,
        ruleState: 'ENABLED',
        ruleStatus: 'ACTIVE',
        createdDate: CREATED,
        lastUpdatedDate: CREATED,
        ruleDetails: {
          name: r.name,
          ruleType: r.type,
          budgetIncreaseBy: { type: 'PERCENT', value: r.percent },
          duration: { dateRangeTypeRuleDuration: { startDate: '20260101', endDate: null } },
        },
      }));
      const next = offset + pageSize < RULES.length ? { nextToken: String(offset + pageSize) } : {};
      return { budgetRulesForAdvertiserResponse: page, ...next };
    },
  );
}
