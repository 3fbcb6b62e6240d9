import { expect } from 'chai';
import type { Decider, DomainEvent } from '../../src/domain/shared/decider.js';
import { DomainError, type ErrorCode } from '../../src/domain/shared/errors.js';

/**
 * Given/when/then for pure deciders:
 *   given(decider, [past events]).when(command).then([expected events])
 *   given(decider, [past events]).when(command).thenThrows('code') (returns the refusal)
 */
export function given<C, S, E extends DomainEvent>(decider: Decider<C, S, E>, history: E[]) {
  const state = history.reduce(decider.evolve, decider.initialState());
  return {
    when(command: C) {
      const run = () => decider.decide(command, state);
      return {
        then(expected: E[]) {
          expect(run()).to.deep.equal(expected);
        },
        thenThrows(code: ErrorCode, detail?: RegExp): DomainError {
          let thrown: unknown;
          try {
            run();
          } catch (err) {
            thrown = err;
          }
          expect(thrown, 'decide should refuse the command').to.be.instanceOf(DomainError);
          expect((thrown as DomainError).code).to.equal(code);
          if (detail) expect((thrown as DomainError).detail).to.match(detail);
          return thrown as DomainError;
        },
      };
    },
  };
}
