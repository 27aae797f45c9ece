// Reads and writes one HTTP device through its definition: asks the endpoints a kind's rules name,
// one request at a time and no faster than the device allows, authenticates as the definition
// says (a bearer token, a login whose session cookies are renewed once on 401/403, a header),
// parses JSON or `key=value` answers and turns them into API fields with the shared field rules.
// It holds no timers; the runtime decides when to read.
import type { DriverBinding } from '../../domain/device.ts';
import type { Clock } from '../../domain/time.ts';
import type { CommandType, DeviceKind } from '../../domain/vocabulary.ts';
import { httpRequest, type HttpAnswer, type HttpTarget } from '../../transport/http-device.ts';
import type { FieldRule } from '../families/definition-parts.ts';
import { evaluateFields, type PointValues } from '../values/field-rules.ts';
import { applyRule } from '../values/values.ts';
import type { HttpDriverDefinition, HttpEndpoint, HttpFieldRule } from './definition.ts';
import { httpSettingsOf, targetOf } from './http-registry.ts';

/** The device refused the credentials (an expired token, a wrong password): no quick retry helps. */
export class AuthRefusedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'AuthRefusedError';
  }
}

/** The device asked the hub to wait (429, or 503 with Retry-After). */
export class RateLimitedError extends Error {
  constructor(readonly retryAfterMs: number) {
    super(`the device asks the hub to wait ${Math.ceil(retryAfterMs / 1000)} s (rate limit)`);
    this.name = 'RateLimitedError';
  }
}

export class HttpStatusError extends Error {
  constructor(readonly status: number, path: string) {
    super(`the device answered ${status} to ${path}`);
    this.name = 'HttpStatusError';
  }
}

/**
 * One request at a time to one device, and the least gap between two: shared by every device
 * record reached at the same address (an Envoy added as PV inverter and as meter is one gateway).
 */
export class RequestLane {
  private queue: Promise<unknown> = Promise.resolve();
  /** Real elapsed time (not the hub's clock, which tests move by hand): the gap is the device's. */
  lastRequestAtMs = -Infinity;

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.queue.then(task, task);
    this.queue = result.catch(() => {});
    return result;
  }
}

export interface ReadOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

export class HttpReader {
  readonly target: HttpTarget;
  readonly settings: Record<string, string>;
  /** Session cookies of a login, sent with every request until the device refuses them. */
  private cookies: string | undefined;
  constructor(
    readonly definition: HttpDriverDefinition,
    readonly binding: DriverBinding,
    private readonly clock: Clock,
    private readonly lane = new RequestLane(),
  ) {
    this.target = targetOf(definition, binding);
    this.settings = httpSettingsOf(definition, binding);
  }

  /** The kind's state in API units; fields the device did not report are absent. */
  readState(kind: DeviceKind, options: ReadOptions): Promise<Record<string, unknown>> {
    const mapping = this.definition.kinds[kind];
    if (!mapping) throw new Error(`driver ${this.definition.type} does not map a ${kind}`);
    return this.evaluate(mapping.fields, options);
  }

  readStatic(kind: DeviceKind, options: ReadOptions): Promise<Record<string, unknown>> {
    const rules = this.definition.kinds[kind]?.staticData;
    return rules ? this.evaluate(rules, options) : Promise.resolve({});
  }

  /** The parsed answer of one endpoint; undefined for an optional endpoint the device lacks. */
  async read(name: string, options: ReadOptions): Promise<unknown> {
    const endpoint = this.definition.endpoints[name];
    if (!endpoint) throw new Error(`driver ${this.definition.type} has no endpoint ${name}`);
    const answer = await this.send(endpoint.method ?? 'GET', fill(endpoint.path, this.settings), endpoint.body, options, endpoint.optional);
    return answer === undefined ? undefined : parseBody(answer.body, endpoint.format);
  }

  /** Carries out a command's request; resolves when the device says it took it. */
  async command(type: CommandType, value: string | number | boolean, options: ReadOptions): Promise<void> {
    const spec = this.definition.commands?.[type];
    if (!spec) throw new Error(`driver ${this.definition.type} has no command ${type}`);
    const read = spec.readFirst ? await this.read(spec.readFirst, options) : {};
    const known: Record<string, string> = { ...this.settings };
    for (const [key, raw] of Object.entries((read ?? {}) as Record<string, unknown>)) if (raw !== null && typeof raw !== 'object') known[key] = String(raw);
    for (const [name, rule] of Object.entries(spec.values ?? {})) {
      const got = applyRule(rule, read);
      if (got === undefined) throw new Error(`the device did not report ${name}, which the setting needs`);
      known[name] = String(got);
    }
    const text = spec.encode === 'hex-byte' ? hexByte(Number(value)) : String(value);
    const params = { ...spec.query, ...spec.queryByValue?.[text] };
    let path: string;
    let body: string | undefined;
    try {
      const query = Object.entries(params).map(([key, template]) => `${encodeURIComponent(key)}=${encodeURIComponent(fill(fill(template, { value: text }, true), known))}`);
      path = fill(fill(spec.path, { value: text }, true), known) + (query.length > 0 ? `?${query.join('&')}` : '');
      const bodyTemplate = spec.bodyByValue?.[String(value)] ?? spec.body;
      body = bodyTemplate === undefined ? undefined : fill(fill(bodyTemplate, { value: text }, true), known);
    } catch (err) {
      // Said as what the unit lacks, never as the definition's template.
      if (err instanceof MissingValue) throw new Error(`the unit did not report its ${err.names[0]} setting, which this change needs`);
      throw err;
    }
    const answer = await this.send(spec.method ?? 'GET', path, body, options);
    if (spec.success) {
      const data = parseBody(answer!.body, spec.readFirst ? this.definition.endpoints[spec.readFirst]!.format : 'json');
      const said = applyRule({ path: spec.success.path, as: 'string' }, data);
      if (!spec.success.equals.includes(String(said))) throw new Error(`the device refused the setting (${spec.success.path}=${String(said)})`);
    }
  }

  private async evaluate(rules: Record<string, HttpFieldRule | readonly HttpFieldRule[]>, options: ReadOptions): Promise<Record<string, unknown>> {
    const wanted = new Set<string>();
    for (const list of Object.values(rules)) for (const rule of asList(list)) if ('from' in rule) wanted.add(rule.from);
    const answers = new Map<string, unknown>();
    for (const name of wanted) answers.set(name, await this.read(name, options));
    // Each value rule becomes a point of the shared field rules, already in the field's unit.
    const values: PointValues = new Map();
    const fieldRules: Record<string, FieldRule[]> = {};
    for (const [field, list] of Object.entries(rules)) {
      fieldRules[field] = asList(list).map((rule, i): FieldRule => {
        if (!('from' in rule)) return rule;
        const key = `${field}#${i}`;
        const answer = answers.get(rule.from);
        const applies = !rule.when || rule.when.equals.includes(String(applyRule({ path: rule.when.path, as: 'string' }, answer)));
        const value = applies ? applyRule(rule, answer) : undefined;
        values.set(key, typeof value === 'boolean' ? String(value) : value);
        return { point: key, invert: rule.invert, min: rule.min, max: rule.max, digits: rule.digits };
      });
    }
    return evaluateFields(fieldRules, values);
  }

  /** One request through the device's lane, authenticated; a login is renewed once when refused. */
  private send(method: 'GET' | 'POST', path: string, body: string | undefined, options: ReadOptions, optional = false): Promise<HttpAnswer | undefined> {
    const run = async (): Promise<HttpAnswer | undefined> => {
      const auth = this.definition.auth;
      if (auth.scheme === 'login' && !this.cookies) await this.login(options);
      let answer = await this.request(method, path, body, options);
      if ((answer.status === 401 || answer.status === 403) && auth.scheme === 'login') {
        this.cookies = undefined;
        await this.login(options);
        answer = await this.request(method, path, body, options);
      }
      if (answer.status === 401 || answer.status === 403) {
        throw new AuthRefusedError(auth.scheme === 'bearer'
          ? `the device refused the token (${answer.status}); it may have expired: get a new one and set it with \`hub devices add\``
          : `the device refused the hub's credentials (${answer.status})`);
      }
      if (answer.status === 404 && optional) return undefined;
      if (answer.status < 200 || answer.status >= 300) throw new HttpStatusError(answer.status, path.split('?')[0]!);
      return answer;
    };
    return this.lane.run(run);
  }

  private async login(options: ReadOptions): Promise<void> {
    const auth = this.definition.auth;
    if (auth.scheme !== 'login') return;
    const answer = await this.request('POST', auth.path, fillJson(auth.body, this.settings), options, true);
    if (answer.status === 401 || answer.status === 403) throw new AuthRefusedError(`the device refused the login (${answer.status}): check the email and password`);
    if (answer.status < 200 || answer.status >= 300) throw new HttpStatusError(answer.status, auth.path);
    const set = answer.headers['set-cookie'] ?? [];
    const jar = set.map((line) => line.split(';')[0]!.trim()).filter((pair) => auth.cookies.includes(pair.split('=')[0]!));
    if (jar.length === 0) throw new AuthRefusedError('the device accepted the login but set no session cookie');
    this.cookies = jar.join('; ');
  }

  /** A request after the device's least gap since the last one; 429/503 with Retry-After become RateLimitedError. */
  private async request(method: 'GET' | 'POST', path: string, body: string | undefined, options: ReadOptions, isLogin = false): Promise<HttpAnswer> {
    const gap = this.definition.defaults.minGapMs ?? 0;
    const wait = this.lane.lastRequestAtMs + gap - performance.now();
    if (wait > 0) await delay(wait, options.signal);
    const headers: Record<string, string> = {};
    const auth = this.definition.auth;
    if (auth.scheme === 'bearer') {
      const token = this.settings[auth.setting]!;
      const expiry = jwtExpiryMs(token);
      if (expiry !== undefined && expiry <= this.clock.now()) {
        throw new AuthRefusedError(`the token expired on ${new Date(expiry).toISOString()}: get a new one and set it with \`hub devices add\``);
      }
      headers['authorization'] = `Bearer ${token}`;
    } else if (auth.scheme === 'header') {
      // Optional: BRP069 adapters want none, a BRP072C its registered uuid.
      const value = this.settings[auth.setting];
      if (value !== undefined) headers[auth.header] = value;
    } else if (auth.scheme === 'login' && this.cookies && !isLogin) {
      headers['cookie'] = this.cookies;
    }
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      const answer = await httpRequest(this.target, { method, path, headers, body, timeoutMs: options.timeoutMs, signal: options.signal });
      if (answer.status === 429 || (answer.status === 503 && answer.headers['retry-after'] !== undefined)) {
        throw new RateLimitedError(retryAfterMs(answer.headers['retry-after'], this.clock.now()));
      }
      return answer;
    } finally {
      this.lane.lastRequestAtMs = performance.now();
    }
  }
}

/** One byte as two hex digits ("2F"): a BRP084 setpoint is °C × 2 written so. */
function hexByte(value: number): string {
  if (!Number.isInteger(value) || value < 0 || value > 255) throw new Error(`${value} does not fit in one byte`);
  return value.toString(16).toUpperCase().padStart(2, '0');
}

function asList(list: HttpFieldRule | readonly HttpFieldRule[]): readonly HttpFieldRule[] {
  return Array.isArray(list) ? list : [list as HttpFieldRule];
}

/** JSON, or Daikin's `key=value,key=value` with percent-encoded values (`name=%4e%6f…`). */
export function parseBody(body: string, format: HttpEndpoint['format']): unknown {
  if (format === 'json') {
    try {
      return JSON.parse(body);
    } catch {
      throw new Error('the device answered something that is not JSON');
    }
  }
  const out: Record<string, string> = {};
  for (const pair of body.trim().split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const raw = pair.slice(at + 1);
    let value = raw;
    try {
      value = decodeURIComponent(raw);
    } catch { /* a stray % is kept as it is */ }
    out[pair.slice(0, at)] = value;
  }
  return out;
}

/** A value a template needs and neither the settings nor the device's answer hold. */
export class MissingValue extends Error {
  constructor(readonly names: string[]) {
    super(`no value for ${names.join(' or ')}`);
  }
}

/**
 * Fills `{name}`, or the first of `{a|b|c}` that is known; `partial` leaves unknown names for a
 * second pass (`{dt{value}|stemp}`: the mode's own setpoint, else the one in force).
 */
export function fill(template: string, values: Record<string, string>, partial = false): string {
  return template.replace(/\{(\w+(?:\|\w+)*)\}/g, (all, names: string) => {
    const alternatives = names.split('|');
    for (const name of alternatives) {
      const value = values[name];
      if (value !== undefined) return value;
    }
    if (partial) return all;
    throw new MissingValue(alternatives);
  });
}

/** A JSON body template: values are escaped as JSON string content. */
function fillJson(template: string, values: Record<string, string>): string {
  return fill(template, Object.fromEntries(Object.entries(values).map(([k, v]) => [k, JSON.stringify(v).slice(1, -1)])));
}

/** `exp` of a JWT (Enphase's owner token), when the token is one. */
export function jwtExpiryMs(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

function retryAfterMs(header: string | string[] | undefined, nowMs: number): number {
  const text = Array.isArray(header) ? header[0] : header;
  if (text === undefined) return 60_000;
  const seconds = Number(text);
  if (Number.isFinite(seconds)) return Math.max(1000, seconds * 1000);
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(1000, at - nowMs) : 60_000;
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
