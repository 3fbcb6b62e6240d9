import { MAX_CODE_BYTES } from '../../src/domain/automation/code-check.js';
import { automationDecider, type AutomationCommand } from '../../src/domain/automation/decide.js';
import type { AutomationEvent, LiveSlotEvent } from '../../src/domain/automation/events.js';
import { liveSlotDecider } from '../../src/domain/automation/live-slot.js';
import * as fixture from '../support/automation.js';
import { account_id, at, automation_id, by, code, other } from '../support/automation.js';
import { given } from '../support/gwt.js';

// spec 3.1, row by row: the automation's own decider, then the live slot that keeps one live
// automation per event type and account.

const createdData = fixture.createdData();
const create: Extract<AutomationCommand, { type: 'CreateAutomation' }> = { type: 'CreateAutomation', ...createdData };
const created = fixture.created();
const activated: AutomationEvent = { type: 'AutomationActivated', data: { by, at } };
const archived: AutomationEvent = { type: 'AutomationArchived', data: { by, at } };
const cmd = <T extends AutomationCommand['type']>(type: T, extra: object = {}) =>
  ({ type, automation_id, by, at, ...extra }) as Extract<AutomationCommand, { type: T }>;

describe('automation decider (spec 3.1)', () => {
  describe('(none)', () => {
    it('create_automation makes a draft with code version 1', () =>
      given(automationDecider, []).when(create).then([created]));
    it('duplicate_automation is a creation naming its source', () =>
      given(automationDecider, [])
        .when({ ...create, source_automation_id: other })
        .then([{ type: 'AutomationCreated', data: { ...createdData, source_automation_id: other } }]));
    it('refuses code over 100,000 bytes (counted in UTF-8 bytes, not characters)', () =>
      given(automationDecider, [])
        .when({ ...create, code: 'é'.repeat(MAX_CODE_BYTES / 2 + 1) })
        .thenThrows('code_too_large', /100002 bytes is over the limit of 100000/));
    it('accepts code of exactly 100,000 bytes', () => {
      const full = code.padEnd(MAX_CODE_BYTES, ' ');
      given(automationDecider, [])
        .when({ ...create, code: full })
        .then([{ type: 'AutomationCreated', data: { ...createdData, code: full } }]);
    });
    it('refuses code that does not parse, or whose handle does not take 2 parameters, saying where', () => {
      given(automationDecider, [])
        .when({ ...create, code: 'function handle(event, context) {\n  return 1 +;\n}' })
        .thenThrows('invalid', /^code: line 2, column 13: Unexpected token$/);
      given(automationDecider, [])
        .when({ ...create, code: 'function handle(event) {}' })
        .thenThrows('invalid', /exactly 2 parameters \(event, context\); it has 1/);
    });
    it('an edit, activation or archive of an unknown id is automation_not_found', () => {
      given(automationDecider, [])
        .when(cmd('EditAutomation', { title: 'x' }))
        .thenThrows('automation_not_found');
      given(automationDecider, []).when(cmd('ActivateAutomation')).thenThrows('automation_not_found');
      given(automationDecider, []).when(cmd('ArchiveAutomation')).thenThrows('automation_not_found');
    });
    it('creating an id twice is a conflict', () =>
      given(automationDecider, [created]).when(create).thenThrows('conflict'));
  });

  describe('draft', () => {
    it('activate makes it live', () =>
      given(automationDecider, [created]).when(cmd('ActivateAutomation')).then([activated]));
    it('a code edit saves version 2 and keeps the state', () =>
      given(automationDecider, [created])
        .when(cmd('EditAutomation', { code: `${code}\n` }))
        .then([{ type: 'AutomationCodeSaved', data: { version: 2, code: `${code}\n`, by, at } }]));
    it('title and dependencies edits record what changed, nothing for what stayed', () =>
      given(automationDecider, [created])
        .when(
          cmd('EditAutomation', {
            code,
            title: 'Reprice v2',
            operation_dependencies: {
              'sp:listings:2021-08-01:patchListingsItem': { catalog_revision: 'r1', schema_digest: 'd' },
            },
          }),
        )
        .then([
          { type: 'AutomationRetitled', data: { title: 'Reprice v2', by, at } },
          {
            type: 'AutomationDependenciesSet',
            data: {
              operation_dependencies: {
                'sp:listings:2021-08-01:patchListingsItem': { catalog_revision: 'r1', schema_digest: 'd' },
              },
              by,
              at,
            },
          },
        ]));
    it('an edit that changes nothing records nothing', () =>
      given(automationDecider, [created])
        .when(cmd('EditAutomation', { code, title: 'Reprice' }))
        .then([]));
    it('an edit over the size limit is refused', () =>
      given(automationDecider, [created])
        .when(cmd('EditAutomation', { code: code.padEnd(MAX_CODE_BYTES + 1, ' ') }))
        .thenThrows('code_too_large'));
    it('deactivating it by its user records nothing', () =>
      given(automationDecider, [created])
        .when(cmd('DeactivateAutomation', { replaced_by: null }))
        .then([]));
    it('archive drops it (no deactivation: it was not live)', () =>
      given(automationDecider, [created]).when(cmd('ArchiveAutomation')).then([archived]));
    it('a replacement elsewhere deactivates nothing', () =>
      given(automationDecider, [created])
        .when(cmd('DeactivateAutomation', { replaced_by: other }))
        .then([]));
  });

  describe('live', () => {
    const live = [created, activated];
    it('activating again records nothing', () =>
      given(automationDecider, live).when(cmd('ActivateAutomation')).then([]));
    it('a code edit keeps it live with the next version', () =>
      given(automationDecider, [
        ...live,
        { type: 'AutomationCodeSaved' as const, data: { version: 2, code: `${code}\n`, by, at } },
      ])
        .when(cmd('EditAutomation', { code: `${code}\n\n` }))
        .then([{ type: 'AutomationCodeSaved', data: { version: 3, code: `${code}\n\n`, by, at } }]));
    it('a code edit that does not parse is refused and keeps it live on its last version', () =>
      given(automationDecider, live)
        .when(cmd('EditAutomation', { code: 'function handle(event, context) {' }))
        .thenThrows('invalid', /^code: line 1, column 34: Unexpected token$/));
    it('another automation of the event type going live deactivates it', () =>
      given(automationDecider, live)
        .when(cmd('DeactivateAutomation', { replaced_by: other }))
        .then([{ type: 'AutomationDeactivated', data: { reason: 'replaced', replaced_by: other, by, at } }]));
    it('its user deactivating it makes it a draft again, stopped', () =>
      given(automationDecider, live)
        .when(cmd('DeactivateAutomation', { replaced_by: null }))
        .then([{ type: 'AutomationDeactivated', data: { reason: 'stopped', replaced_by: null, by, at } }]));
    it('archive deactivates first, then archives', () =>
      given(automationDecider, live)
        .when(cmd('ArchiveAutomation'))
        .then([{ type: 'AutomationDeactivated', data: { reason: 'archived', replaced_by: null, by, at } }, archived]));
  });

  describe('archived', () => {
    const gone = [created, archived];
    it('archiving again records nothing', () => given(automationDecider, gone).when(cmd('ArchiveAutomation')).then([]));
    it('refuses edits and activation, keeping the history', () => {
      given(automationDecider, gone)
        .when(cmd('EditAutomation', { title: 'x' }))
        .thenThrows('invalid', /archived/);
      given(automationDecider, gone)
        .when(cmd('ActivateAutomation'))
        .thenThrows('invalid', /archived/);
      given(automationDecider, gone)
        .when(cmd('DeactivateAutomation', { replaced_by: null }))
        .thenThrows('invalid', /archived/);
    });
  });
});

describe('live slot decider (one live automation per event type and account)', () => {
  const slot = { account_id, stream_type: 'ANY_OFFER_CHANGED', at };
  const changed = (to: string | null, previous: string | null): LiveSlotEvent => ({
    type: 'LiveAutomationChanged',
    data: { ...slot, automation_id: to, previous },
  });
  it('claims an empty slot', () =>
    given(liveSlotDecider, [])
      .when({ type: 'ClaimLive', ...slot, automation_id })
      .then([changed(automation_id, null)]));
  it('a claim by another automation names the one it replaces', () =>
    given(liveSlotDecider, [changed(automation_id, null)])
      .when({ type: 'ClaimLive', ...slot, automation_id: other })
      .then([changed(other, automation_id)]));
  it('claiming a slot already held records nothing', () =>
    given(liveSlotDecider, [changed(automation_id, null)])
      .when({ type: 'ClaimLive', ...slot, automation_id })
      .then([]));
  it('the holder releases it', () =>
    given(liveSlotDecider, [changed(automation_id, null)])
      .when({ type: 'ReleaseLive', ...slot, automation_id })
      .then([changed(null, automation_id)]));
  it('a release by an automation that is not the holder records nothing', () =>
    given(liveSlotDecider, [changed(other, null)])
      .when({ type: 'ReleaseLive', ...slot, automation_id })
      .then([]));
});

describe('automation decider: compaction (spec 8, code versions a year from the edit)', () => {
  const saved = (version: number, when: string): AutomationEvent => ({
    type: 'AutomationCodeSaved',
    data: { version, code: `${code}\n// v${version}`, by, at: when },
  });
  const v2 = '2027-01-10T00:00:00.000Z';
  const v3 = '2027-06-01T00:00:00.000Z';
  const compact = (expired_before: string, live = false) => ({
    type: 'CompactAutomation' as const,
    automation_id,
    expired_before,
    live,
    at: '2028-03-01T00:00:00.000Z',
  });
  const compacted = (versions: Array<{ version: number; code: string; by: string; at: string }>, extra = {}) => ({
    type: 'AutomationCompacted' as const,
    data: {
      account_id,
      stream_type: 'ANY_OFFER_CHANGED',
      title: 'Reprice',
      code: `${code}\n// v3`,
      version: 3,
      operation_dependencies: {},
      source_automation_id: null,
      created_at: at,
      created_by: by,
      status: 'draft' as const,
      live: false,
      versions,
      expired_before: '2027-03-01T00:00:00.000Z',
      at: '2028-03-01T00:00:00.000Z',
      ...extra,
    },
  });
  const version = (n: number, when: string) => ({
    version: n,
    code: n === 1 ? code : `${code}\n// v${n}`,
    by,
    at: when,
  });

  it('drops the versions edited before the cutoff, keeping the later ones and the current one, with the automation as it stands', () =>
    given(automationDecider, [created, saved(2, v2), saved(3, v3)])
      .when(compact('2027-03-01T00:00:00.000Z'))
      .then([compacted([version(3, v3)])]));
  it('never drops the current version, however old; nothing expired records nothing', () => {
    given(automationDecider, [created]).when(compact('2030-01-01T00:00:00.000Z')).then([]);
    given(automationDecider, [created, saved(2, v2), saved(3, v3)])
      .when(compact(at))
      .then([]);
  });
  it('keeps the live flag the slot gave and the status; a compacted stream compacts again from what it kept', () => {
    const first = compacted([version(2, v2), version(3, v3)], {
      status: 'live',
      live: true,
      expired_before: '2027-01-01T00:00:00.000Z',
    });
    given(automationDecider, [created, saved(2, v2), saved(3, v3), activated])
      .when(compact('2027-01-01T00:00:00.000Z', true))
      .then([first]);
    given(automationDecider, [first])
      .when(compact('2027-03-01T00:00:00.000Z', true))
      .then([compacted([version(3, v3)], { status: 'live', live: true })]);
  });
  it('an edit after a compaction saves the next version', () =>
    given(automationDecider, [compacted([version(3, v3)])])
      .when(cmd('EditAutomation', { code: `${code}\n// v4` }))
      .then([{ type: 'AutomationCodeSaved', data: { version: 4, code: `${code}\n// v4`, by, at } }]));
  it('an automation that does not exist compacts to nothing', () =>
    given(automationDecider, []).when(compact(at)).then([]));
  it('an archived automation keeps its status', () =>
    given(automationDecider, [created, saved(2, v2), saved(3, v3), archived])
      .when(compact('2027-03-01T00:00:00.000Z'))
      .then([compacted([version(3, v3)], { status: 'archived' })]));
});
