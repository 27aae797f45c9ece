// A request to a whole hub's API over its real socket, with a key, as the whole-hub test fixtures
// (http-hub, mqtt-hub, connect-hub) give their tests: `json` is sent as the body.
export type KeyedApi = (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;

/** `base()`: the hub's address, read at each call (known once it listens). */
export function keyedApi(base: () => string, key: string): KeyedApi {
  return (path, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set('x-api-key', key);
    let body = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers.set('content-type', 'application/json');
    }
    return fetch(`${base()}/v1.0.0${path}`, { ...init, headers, body });
  };
}
