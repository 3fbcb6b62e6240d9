import { dispatchControlDecider } from '../../domain/dispatch-control/decide.js';
import { streamName } from '../../commands/shared/handler.js';
import type { EventStore } from '../../eventstore/port.js';
import type { AccountHistory } from './history.js';

// The store a backtest run's admission decides against (admitMutations with `simulate`): block
// flags and Automation switches read as their streams stood at the event's time, from the
// history already read; any other stream (the automation's own, for its saved
// operation_dependencies) from the store as it is. Every write throws: a backtest records nothing
// outside its own stream, and this makes that a property of the store it hands admission.

const CONTROL_PREFIX = streamName(dispatchControlDecider.aggregate, '');

export function flagsAsOf(store: EventStore, history: AccountHistory, t: number): EventStore {
  const refuse = (): never => {
    throw new Error('a backtest writes nothing to the log outside its own records');
  };
  const readStream: EventStore['readStream'] = async (stream, options) =>
    stream.startsWith(CONTROL_PREFIX) ? history.control(stream, t) : store.readStream(stream, options);
  return {
    atomicCreation: store.atomicCreation,
    readStream,
    readStreams: (streams) => Promise.all(streams.map((s) => readStream(s))),
    appendToStream: refuse,
    appendToStreams: refuse,
    createStreams: refuse,
    deleteStream: refuse,
    truncateStream: refuse,
    readAll: (options) => store.readAll(options),
    readAllOfTypes: (options) => store.readAllOfTypes(options),
    headPosition: () => store.headPosition(),
    subscribeToAll: (options) => store.subscribeToAll(options),
    onAppended: (listener, types) => store.onAppended(listener, types),
    close: refuse,
  };
}
