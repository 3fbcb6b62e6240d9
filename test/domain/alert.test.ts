import { alertDecider, type Finding } from '../../src/domain/alert/decide.js';
import type { AlertEvent } from '../../src/domain/alert/events.js';
import { stableId } from '../../src/domain/shared/ids.js';
import { given } from '../support/gwt.js';

const account_id = '5d1f4e1a-8a43-4f51-9d2a-6f1f1f1f1f1f';
const at = '2026-12-03T10:00:00.000Z';
const later = '2026-12-03T10:01:00.000Z';
const destination = { kind: 'webhook' as const, webhook: 'ops' };
const set: AlertEvent = { type: 'AlertDestinationSet', data: { account_id, destination, by: 'user-1', at } };
const revoked: Finding = { key: 'authorization:c1', kind: 'authorization_revoked', detail: 'revoked' };
const failing: Finding = { key: 'automation:a1', kind: 'automation_failing', detail: 'failed 3 runs' };
const alertId = (n: number) => stableId('alert', `${account_id}#${n}`);
const raised = (f: Finding, n: number, when = at): AlertEvent => ({
  type: 'AlertRaised',
  data: { account_id, alert_id: alertId(n), key: f.key, kind: f.kind, detail: f.detail, destination, at: when },
});
const findings = (...found: Finding[]) => ({ type: 'RecordFindings' as const, account_id, findings: found, at });

describe('alert decider', () => {
  it('sets a destination once: the same again records nothing; null turns alerts off', () => {
    given(alertDecider, [])
      .when({ type: 'SetAlertDestination', account_id, destination, by: 'user-1', at })
      .then([set]);
    given(alertDecider, [set])
      .when({ type: 'SetAlertDestination', account_id, destination, by: 'user-2', at: later })
      .then([]);
    given(alertDecider, [set])
      .when({ type: 'SetAlertDestination', account_id, destination: null, by: 'user-1', at: later })
      .then([{ type: 'AlertDestinationSet', data: { account_id, destination: null, by: 'user-1', at: later } }]);
  });

  it('raises nothing without a destination', () => {
    given(alertDecider, []).when(findings(revoked)).then([]);
  });

  it('raises each condition found once, a duplicate finding once', () => {
    given(alertDecider, [set])
      .when(findings(revoked, failing, revoked))
      .then([raised(revoked, 0), raised(failing, 1)]);
    given(alertDecider, [set, raised(revoked, 0)])
      .when(findings(revoked, failing))
      .then([raised(failing, 1)]);
  });

  it('clears a condition no longer found; found again, it is a new alert', () => {
    const cleared: AlertEvent = { type: 'AlertCleared', data: { key: revoked.key, at } };
    given(alertDecider, [set, raised(revoked, 0)])
      .when(findings())
      .then([cleared]);
    given(alertDecider, [set, raised(revoked, 0), cleared])
      .when(findings(revoked))
      .then([raised(revoked, 1)]);
  });

  it('records the hand-off of an unsent alert once', () => {
    const sent: AlertEvent = { type: 'AlertSent', data: { alert_id: alertId(0), at: later, refused: null } };
    given(alertDecider, [set, raised(revoked, 0)])
      .when({ type: 'MarkAlertSent', alert_id: alertId(0), at: later, refused: null })
      .then([sent]);
    given(alertDecider, [set, raised(revoked, 0), sent])
      .when({ type: 'MarkAlertSent', alert_id: alertId(0), at: later, refused: null })
      .then([]);
  });
});
