// What a browser opening the hub's address sees: what this is and where to go next. No data of the
// household and no secret: the page is served without a key, like /docs and /health.
import type { StartedAs } from './deps.ts';
const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{background:#f3f3f3;padding:0 .2rem}a{color:#1864ab}
pre{padding:.5rem;white-space:pre-wrap;overflow-wrap:anywhere}
@media (prefers-color-scheme: dark){body{background:#111;color:#ddd}code,pre{background:#222}a{color:#74c0fc}}`;

/** Where the page's commands come from: they must be the ones that work where the hub runs. */
function commands(startedAs: StartedAs): { key: string; list: string } {
  if (startedAs === 'installed') {
    return {
      key: '<code>sudo home-energy-hub keys create NAME</code> makes one, on the gateway',
      list: '<code>sudo home-energy-hub devices list</code>',
    };
  }
  const make = '<code>npm run hub -- keys create NAME</code> makes one, in the checkout the hub runs from';
  return {
    key: startedAs === 'demo' ? `<code>npm start</code> printed one for the demo; ${make}` : make,
    list: '<code>npm run hub -- devices list</code>',
  };
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

export function renderLandingPage(baseUrl: string, startedAs: StartedAs = 'checkout'): string {
  const base = esc(baseUrl);
  const say = commands(startedAs);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>home-energy-hub</title><style>${STYLE}</style></head><body>
<h1>home-energy-hub</h1>
<p>A local hub for the household's energy devices: batteries, PV inverters, meters, heat pumps and air
conditioners, EV chargers, vehicles and tariffs, reached over Modbus, MQTT and OCPP on the home network
and served through the <code>/v1.0.0</code> API.</p>
<ul>
<li><a href="/home">Household</a>: the household live, its devices and the last 48 hours, after entering a key.</li>
<li><a href="/docs">API documentation</a>: every operation, parameter and answer.</li>
<li><a href="/health">Health</a>: whether the hub, its database and its device links are well.</li>
<li><code>GET /v1.0.0/openapi.json</code> and <code>GET /metrics</code>: the OpenAPI document and Prometheus metrics (with a key).</li>
</ul>
<h2>Your devices</h2>
<p>Every API request carries a key in the <code>X-API-KEY</code> header (${say.key}). With it:</p>
<pre>curl -H "X-API-KEY: $KEY" ${base}/v1.0.0/batteries

curl -H "X-API-KEY: $KEY" ${base}/v1.0.0/chargers/{chargerId}</pre>
<p>On the gateway itself, ${say.list} lists every device with its id.</p>
</body></html>`;
}
