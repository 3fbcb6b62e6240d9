import type { AutomationEvent, LiveSlotEvent } from '../../src/domain/automation/events.js';
import { createDb } from '../../src/infra/db.js';
import { automationsProjection } from '../../src/projections/automations/projection.js';
import { account_id, at, automation_id, by, code, created, other, stream_type } from '../support/automation.js';
import { assertApplyTwiceSameResult, inStream, projectionSpec, recordedEvents } from '../support/projections.js';

// The automations read model, event by event (spec 2.2, 3.1, 8): `live` follows the live slot,
// `archived` the automation's stream, and every code version is kept.

const a = automation_id;
const b = other;

const automation = (id: string, events: AutomationEvent[]) => inStream(`automation-${id}`, events);
const slot = (events: LiveSlotEvent['data'][]) =>
  inStream(
    `automation_live-${account_id}.${stream_type}`,
    events.map((data) => ({ type: 'LiveAutomationChanged', data })),
  );
const changed = (to: string | null, previous: string | null) => ({
  account_id,
  stream_type,
  automation_id: to,
  previous,
  at,
});

const given = projectionSpec(automationsProjection);
const history = [
  ...automation(a, [created(a)]),
  ...automation(b, [created(b)]),
  ...slot([changed(a, null)]),
  ...automation(a, [{ type: 'AutomationActivated', data: { by, at } }]),
];

describe('automations projection', () => {
  it('a creation is a draft row at version 1 with its first code version', async () => {
    const when = given([]).when(automation(a, [created(a)]));
    await when.then('automations', [
      { automation_id: a, stream_type, title: 'Reprice', version: 1, live: false, archived: false },
    ]);
    await when.then('automation_code_versions', [{ automation_id: a, version: 1, code, by, at }]);
  });

  it('a code save moves the current code and adds the version; retitling and dependencies change only theirs', async () => {
    const deps = { 'sp:listings:patch': { catalog_revision: 'r1', schema_digest: 'd1' } };
    const when = given(automation(a, [created(a)])).when(
      automation(a, [
        { type: 'AutomationCodeSaved', data: { version: 2, code: `${code}\n`, by: 'user-2', at } },
        { type: 'AutomationRetitled', data: { title: 'Reprice v2', by, at } },
        { type: 'AutomationDependenciesSet', data: { operation_dependencies: deps, by, at } },
      ]),
    );
    await when.then('automations', [
      {
        automation_id: a,
        code: `${code}\n`,
        version: 2,
        title: 'Reprice v2',
        operation_dependencies: deps,
        live: false,
      },
    ]);
    await when.then('automation_code_versions', [
      { version: 1, code, by },
      { version: 2, code: `${code}\n`, by: 'user-2' },
    ]);
  });

  it('the slot naming an automation makes it live, and the one it names next takes its place', async () => {
    await given(history.slice(0, -2))
      .when(history.slice(-2))
      .then('automations', [
        { automation_id: a, live: true },
        { automation_id: b, live: false },
      ]);
    await given(history)
      .when(slot([changed(b, a)]))
      .then('automations', [
        { automation_id: a, live: false },
        { automation_id: b, live: true },
      ]);
  });

  it('a slot claimed before the crash of its activation already reads live (the retry records the rest)', () =>
    given(automation(a, [created(a)]))
      .when(slot([changed(a, null)]))
      .then('automations', [{ automation_id: a, live: true, archived: false }]));

  it('archiving: the slot released, then the row archived', () =>
    given(history)
      .when([
        ...slot([changed(null, a)]),
        ...automation(a, [
          { type: 'AutomationDeactivated', data: { reason: 'archived', replaced_by: null, by, at } },
          { type: 'AutomationArchived', data: { by, at } },
        ]),
      ])
      .then('automations', [
        { automation_id: a, live: false, archived: true },
        { automation_id: b, live: false, archived: false },
      ]));

  it('applying the events twice changes nothing', async () => {
    const db = createDb(process.env.DATABASE_URL!, { min: 0, max: 1 });
    try {
      await assertApplyTwiceSameResult(
        db,
        automationsProjection,
        recordedEvents([...history, ...slot([changed(b, a)])]),
      );
    } finally {
      await db.destroy();
    }
  });
});
