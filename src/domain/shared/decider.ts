// The decider pattern: state is a left fold of events; decide is a pure function of
// (command, state) that returns the new events or throws a DomainError.

export interface DomainEvent<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
}

export interface Decider<Command, State, Event extends DomainEvent> {
  /** stream name prefix: streams are `<aggregate>-<id>` */
  aggregate: string;
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  decide: (command: Command, state: State) => Event[];
}

export function fold<State, Event>(
  evolve: (s: State, e: Event) => State,
  initial: State,
  events: Iterable<Event>,
): State {
  let state = initial;
  for (const e of events) state = evolve(state, e);
  return state;
}
