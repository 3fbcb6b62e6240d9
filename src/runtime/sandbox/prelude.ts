// The isolate side of a run. `isolatePrelude` is never called in Node: its source text is
// evaluated in each fresh isolate before the automation's code, so it captures the built-ins it
// needs before user code can replace them. It installs `console`, removes what a handler has no
// use for (SharedArrayBuffer, Atomics, WebAssembly), and returns the entry that builds `event`
// (behind the missing-field Proxy) and `context`, awaits `handle`, and copies the outbox out as
// JSON strings. The host parses and checks those strings: nothing here is trusted, since user
// code runs in the same realm and can tamper with shared prototypes, hurting only its own run.

/** The automation's `handle`, a free identifier resolved in the isolate's global scope. */
declare const handle: unknown;

/** Host callbacks (isolated-vm copies their arguments); each answers whether there is room for more. */
export type LogCallback = (level: string, text: string, chars: number) => boolean;
export type ReadCallback = (path: string, available: string[]) => boolean;

export interface PreludeSettings {
  /** a console line is cut to this many UTF-16 units here, and to its byte limit by the host */
  consoleLineChars: number;
  /** chars of mutations plus webhook posts beyond which the output is surely over its byte limit (a char is 1 to 3 bytes) */
  outputChars: number;
  missingKeys: number;
  missingPathChars: number;
  /** longest error text copied out */
  errorChars: number;
}

/** What the entry resolves with; the host checks every field. */
export type EntryResult =
  | { kind: 'ok'; mutations: string; posts: string; store: string; dropped: number }
  | { kind: 'invalid'; message: string; dropped: number }
  | { kind: 'threw'; name?: string; message?: string; stack?: string; dropped: number };

export type Entry = (
  eventJson: string,
  contextJson: string,
  storeJson: string,
  webhooksJson: string,
) => Promise<EntryResult>;

export function isolatePrelude(log: LogCallback, read: ReadCallback, settingsJson: string): Entry {
  'use strict';
  const g = globalThis as unknown as Record<string, unknown>;
  const { parse, stringify } = JSON;
  const { apply, get, has, getOwnPropertyDescriptor } = Reflect;
  const { keys, create, defineProperty, freeze } = Object;
  const isArray = Array.isArray;
  const arraySlice = Array.prototype.slice;
  const stringSlice = String.prototype.slice;
  const toWellFormed = (String.prototype as unknown as { toWellFormed(): string }).toWellFormed;
  const ProxyCtor = Proxy;
  const WeakMapCtor = WeakMap;
  const weakGet = WeakMap.prototype.get;
  const weakSet = WeakMap.prototype.set;
  const StringCtor = String;
  const TypeErrorCtor = TypeError;
  const ErrorCtor = Error;
  const charCodeAt = String.prototype.charCodeAt;
  const settings = parse(settingsJson) as PreludeSettings;

  for (const name of ['SharedArrayBuffer', 'Atomics', 'WebAssembly']) delete g[name];

  /** Appends without [[Set]], so setters planted on Array.prototype see nothing. */
  const append = (list: unknown[], value: unknown): void => {
    const d = create(null) as PropertyDescriptor;
    d.value = value;
    d.writable = d.enumerable = d.configurable = true;
    defineProperty(list, list.length, d);
  };
  const constant = (target: object, key: string, value: unknown): void => {
    const d = create(null) as PropertyDescriptor;
    d.value = value;
    d.enumerable = true;
    defineProperty(target, key, d);
  };
  const cut = (text: string, chars: number): string => apply(stringSlice, text, [0, chars]) as string;
  /** 600,350: numbers as the host's messages print them */
  const thousands = (n: number): string => {
    let digits = StringCtor(n);
    let grouped = '';
    for (; digits.length > 3; digits = apply(stringSlice, digits, [0, -3]) as string)
      grouped = `,${apply(stringSlice, digits, [-3]) as string}${grouped}`;
    return digits + grouped;
  };
  const outputLimit = thousands(settings.outputChars);
  const wellFormed = (text: string): string => apply(toWellFormed, text, []) as string;
  /** String(value), or undefined when even that throws (a hostile toString, a revoked proxy). */
  const text = (read: () => unknown): string | undefined => {
    try {
      const value = read();
      return value === undefined ? undefined : cut(wellFormed(StringCtor(value)), settings.errorChars);
    } catch {
      return undefined;
    }
  };
  const reason = (e: unknown): string =>
    text(() => (e !== null && typeof e === 'object' ? (e as Error).message : e)) ?? 'an error that cannot be shown';

  // console: one buffer per run, kept by the host so a run that times out still has its lines
  let logRoom = true;
  let dropped = 0;
  const unshown = '[a value that cannot be shown]';
  const show = (value: unknown): string => {
    try {
      if (typeof value === 'string') return value;
      if (value === undefined) return 'undefined';
      if (value !== null && typeof value === 'object') {
        const stack = value instanceof ErrorCtor ? text(() => value.stack) : undefined;
        if (stack !== undefined) return stack;
        try {
          const json = stringify(value);
          if (typeof json === 'string') return json;
        } catch {
          // a cycle, a BigInt or a throwing getter: fall back to String()
        }
      }
      return text(() => value) ?? unshown;
    } catch {
      return unshown; // a revoked proxy, a hostile Symbol.hasInstance
    }
  };
  const writer =
    (level: string) =>
    (...args: unknown[]): void => {
      if (!logRoom) {
        dropped++;
        return;
      }
      let line = '';
      for (let i = 0; i < args.length; i++) line += (i === 0 ? '' : ' ') + show(args[i]);
      const chars = line.length;
      logRoom = log(
        level,
        wellFormed(chars > settings.consoleLineChars ? cut(line, settings.consoleLineChars) : line),
        chars,
      );
    };
  const consoleObject = freeze({
    log: writer('log'),
    info: writer('info'),
    warn: writer('warn'),
    error: writer('error'),
  });
  defineProperty(g, 'console', { value: consoleObject, writable: true, configurable: true });

  // a fault is invalid output the code may have caught; the run fails with it all the same
  let fault: string | undefined;
  const refuse = (message: string): never => {
    fault ??= message;
    throw new TypeErrorCtor(message);
  };
  const serialize = (value: unknown, what: string): string => {
    let json: string | undefined;
    try {
      json = stringify(value);
    } catch (e) {
      return refuse(`${what}: the value is not JSON-serializable (${reason(e)})`);
    }
    return typeof json === 'string' ? json : refuse(`${what}: a ${typeof value} is not JSON-serializable`);
  };

  // missing-field reads: a Proxy per object of the event, cached so that e.a === e.a
  let readRoom = true;
  const seen = create(null) as Record<string, true>;
  const note = (path: string, target: object): void => {
    if (!readRoom || seen[path] === true) return;
    seen[path] = true;
    readRoom = read(path, apply(arraySlice, keys(target), [0, settings.missingKeys]) as string[]);
  };
  const isIndex = (key: string): boolean => {
    for (let i = 0; i < key.length; i++) {
      const c = apply(charCodeAt, key, [i]) as number;
      if (c < 48 || c > 57) return false;
    }
    return key.length > 0;
  };
  const childPath = (path: string, key: string, inArray: boolean): string => {
    const full = inArray && isIndex(key) ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;
    return full.length > settings.missingPathChars ? `${cut(full, settings.missingPathChars)}…` : full;
  };
  const proxies = new WeakMapCtor<object, object>();
  const track = (value: unknown, path: string): unknown => {
    if (value === null || typeof value !== 'object') return value;
    const known = apply(weakGet, proxies, [value]) as object | undefined;
    if (known) return known;
    const inArray = isArray(value);
    const handler = create(null) as ProxyHandler<object>;
    handler.get = (target, key, receiver) => {
      const found = get(target, key, receiver) as unknown;
      if (typeof key === 'symbol' || key === 'then' || key === 'toJSON') return found;
      const at = childPath(path, key, inArray);
      if (!has(target, key)) {
        note(at, target);
        return found;
      }
      // a frozen property must answer its own value (a Proxy invariant), so it goes untracked
      const own = getOwnPropertyDescriptor(target, key);
      return own && !own.configurable && !own.writable ? found : track(found, at);
    };
    const proxy = new ProxyCtor(value, handler);
    apply(weakSet, proxies, [value, proxy]);
    return proxy;
  };

  const storeApi = (storeJson: string) => {
    const values = create(null) as Record<string, string>;
    const snapshot = parse(storeJson) as Record<string, unknown>;
    for (const key of keys(snapshot)) values[key] = stringify(snapshot[key]);
    const effects = create(null) as Record<string, string | null>;
    const checkKey = (key: unknown, op: string): string =>
      typeof key === 'string' ? key : refuse(`context.store.${op}: the key must be a string, not a ${typeof key}`);
    const api = freeze({
      get(key: unknown): unknown {
        const json = values[checkKey(key, 'get')];
        return json === undefined ? null : parse(json);
      },
      set(key: unknown, value: unknown): void {
        const k = checkKey(key, 'set');
        values[k] = effects[k] = serialize(value, `context.store.set(${stringify(k)})`);
      },
      delete(key: unknown): void {
        const k = checkKey(key, 'delete');
        delete values[k];
        effects[k] = null;
      },
    });
    const copyOut = (): string => {
      const list: unknown[] = [];
      for (const key of keys(effects)) append(list, [key, effects[key]]);
      return stringify(list);
    };
    return { api, copyOut };
  };

  const webhooksApi = (webhooksJson: string) => {
    const posts: unknown[] = [];
    let chars = 0;
    const hooks = create(null) as Record<string, unknown>;
    for (const name of parse(webhooksJson) as string[]) {
      const what = `context.webhooks.${name}.post`;
      hooks[name] = freeze({
        post(payload: unknown): void {
          const json = serialize(typeof payload === 'string' ? { text: payload } : payload, what);
          chars += json.length;
          if (chars > settings.outputChars)
            refuse(`${what}: the run's webhook posts are over the limit of ${outputLimit} bytes of output per run`);
          append(posts, [name, json]);
        },
      });
    }
    return { api: freeze(hooks), posts, chars: () => chars };
  };

  const ARTICLE: Record<string, string> = { object: 'an ', undefined: '' };

  // A push's target is copied out as its type and id, all admission reads of it, so the output
  // limit counts what the outbox counts: handing context.listing itself costs nothing extra.
  const targetsAsIdentity = (pushes: unknown[]) => {
    let push: unknown;
    return function (this: unknown, key: string, value: unknown): unknown {
      if (this === pushes) push = value;
      else if (key === 'target' && this === push && value !== null && typeof value === 'object' && !isArray(value))
        return { type: get(value, 'type'), id: get(value, 'id') };
      return value;
    };
  };

  return async function entry(eventJson, contextJson, storeJson, webhooksJson): Promise<EntryResult> {
    try {
      const store = storeApi(storeJson);
      const webhooks = webhooksApi(webhooksJson);
      const mutations: unknown[] = [];
      const context = parse(contextJson) as Record<string, unknown>;
      constant(context, 'mutations', mutations);
      constant(context, 'webhooks', webhooks.api);
      constant(context, 'store', store.api);
      if (typeof handle !== 'function')
        return {
          kind: 'invalid',
          message: `handle is not a function (it is ${handle === null ? 'null' : (ARTICLE[typeof handle] ?? 'a ') + typeof handle})`,
          dropped,
        };
      await apply(handle as (...a: unknown[]) => unknown, undefined, [track(parse(eventJson), ''), context]);
      if (fault !== undefined) return { kind: 'invalid', message: fault, dropped };
      let out: string;
      try {
        out = stringify(mutations, targetsAsIdentity(mutations));
      } catch (e) {
        return { kind: 'invalid', message: `context.mutations could not be copied out: ${reason(e)}`, dropped };
      }
      const chars = out.length + webhooks.chars();
      if (chars > settings.outputChars)
        return {
          kind: 'invalid',
          message: `the run's output (context.mutations and webhook posts) is at least ${thousands(chars)} bytes; the limit is ${outputLimit} bytes per run`,
          dropped,
        };
      return { kind: 'ok', mutations: out, posts: stringify(webhooks.posts), store: store.copyOut(), dropped };
    } catch (e) {
      if (fault !== undefined) return { kind: 'invalid', message: fault, dropped };
      if (e !== null && (typeof e === 'object' || typeof e === 'function')) {
        const error = e as Error;
        const message = text(() => error.message) ?? text(() => stringify(e)) ?? text(() => e);
        return { kind: 'threw', name: text(() => error.name), message, stack: text(() => error.stack), dropped };
      }
      return { kind: 'threw', message: text(() => e) ?? 'a value that cannot be shown', dropped };
    }
  };
}
