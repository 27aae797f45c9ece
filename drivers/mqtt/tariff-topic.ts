// A tariff whose current price arrives on an MQTT topic. No supplier offers a local price feed
// (Tibber, Ostrom, Octopus Energy and Luox publish prices only through their cloud APIs), so the
// local path is a home system that already fetches them and republishes the current price: the
// de-facto convention is evcc's `evcc/site/tariffGrid` (docs.evcc.io, integrations/mqtt-api), the
// current grid price as a plain number in currency per kWh. Any topic with a plain number works.
// Follows evcc @b29b49e (2026-08-08): server/mqtt.go publishes every value retained, a float with at
// most three decimals (`%.3f`, trailing zeros trimmed: 0.287), the site's currency on
// `evcc/site/currency` (core/site.go), and `evcc/updated` (unix seconds, retained) at most once a
// second while it publishes anything: a heartbeat that keeps the tariff heard while the price stays.
import { defineMqttDriver } from '../../src/runtime/mqtt/definition.ts';

export default defineMqttDriver({
  protocol: 'mqtt',
  type: 'tariff-topic',
  title: 'Tariff price from an MQTT topic (e.g. evcc)',
  source: 'a price republished on MQTT, such as evcc\'s site/tariffGrid',
  vendors: [
    { domain: 'tariffs', code: 'TIBBER' },
    { domain: 'tariffs', code: 'OSTROM' },
    { domain: 'tariffs', code: 'OCTOPUS_ENERGY' },
    { domain: 'tariffs', code: 'LUOX' },
  ],
  kinds: ['tariff'],
  settings: {
    priceTopic: {
      default: 'evcc/site/tariffGrid', pattern: '[^#+]+',
      description: 'the topic that carries the current price as a plain number in currency per kWh',
    },
    currency: { default: 'EUR', pattern: '[A-Z]{3}', description: 'the ISO 4217 code of the price\'s currency, when no currency topic says it' },
    currencyTopic: {
      default: 'evcc/site/currency', pattern: '[^#+]*',
      description: 'a topic that carries the price\'s currency code (evcc\'s site/currency); empty: the currency setting alone',
    },
    heartbeatTopic: {
      default: 'evcc/updated', pattern: '[^#+]*',
      description: 'a topic the publisher updates while it runs (evcc\'s updated); empty: only prices keep the tariff heard',
    },
    staleAfterSeconds: {
      default: '7200', pattern: '[0-9]+',
      description: 'silence after which the tariff is shown offline; longer than the publisher\'s longest gap between two prices',
    },
  },
  staleAfterSetting: 'staleAfterSeconds',
  state: [
    {
      // The current price, e.g. 0.2874 (EUR/kWh). Tariffs have no state object in the API: the price
      // is kept as the tariff's telemetry, with the currency it is quoted in.
      topic: '{priceTopic}', format: 'plain',
      fields: { pricePerKwh: { as: 'number', digits: 5 }, _currencySetting: { as: 'string', fromSettings: '{currency}' } },
    },
    // The currency the publisher quotes in (evcc: site/currency, e.g. EUR), ahead of the setting.
    { topic: '{currencyTopic}', format: 'plain', optional: true, fields: { _currencyPublished: { as: 'string' } } },
    // evcc/updated: its alive indicator; nothing to keep, only that the feed runs.
    { topic: '{heartbeatTopic}', format: 'plain', optional: true, fields: {} },
  ],
  derived: {
    currency: { firstOf: ['_currencyPublished', '_currencySetting'] },
  },
});
