// A tariff whose current price arrives on an MQTT topic. No supplier offers a local price feed
// (Tibber, Ostrom, Octopus Energy and Luox publish prices only through their cloud APIs), so the
// local path is a home system that already fetches them and republishes the current price: the
// de-facto convention is evcc's `evcc/site/tariffGrid` (docs.evcc.io, integrations/mqtt-api), the
// current grid price as a plain number in currency per kWh. Any topic with a plain number works.
// Follows evcc @b29b49e (2026-08-08): server/mqtt.go publishes every value retained, a float with at
// most three decimals (`%.3f`, trailing zeros trimmed: 0.287), the site's currency on
// `evcc/site/currency` (core/site.go), and `evcc/updated` (unix seconds, retained) at most once a
// second while it publishes anything: a heartbeat that keeps the tariff heard while the price stays.
// The day-ahead curve: core/site_tariffs.go publishTariffs publishes `forecast` (its Grid field from
// forecastRates: each rate [start unix s, end unix s, price]), and server/mqtt.go publishComplex
// spreads it over topics: `evcc/site/forecast/grid` the number of rates, `…/grid/<n>` (from 1) that of
// the rate's values, `…/grid/<n>/1` its start, `/2` its end, `/3` its price in the site's currency per
// kWh; an empty payload for no rates. Slots of a longer curve before stay retained past the count.
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
    forecastTopic: {
      default: 'evcc/site/forecast/grid', pattern: '[^#+]*',
      description: 'the topic of the published price curve, evcc\'s site/forecast/grid (its count; each slot\'s start, end and price under it); empty: the current price alone',
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
    // The prices published for the hours ahead, kept as the tariff's telemetry `forecast` (the
    // tariff ledger takes them into its prices). 384 slots: 4 days of quarter hours, more than evcc
    // ever holds (today and tomorrow once the day-ahead auction's results are out).
    {
      topic: '{forecastTopic}', format: 'plain', optional: true, fields: {},
      series: {
        field: 'forecast', maxSlots: 384,
        slot: {
          startMs: { at: '1', as: 'number', scale: 1000, digits: 0 },
          endMs: { at: '2', as: 'number', scale: 1000, digits: 0 },
          pricePerKwh: { at: '3', as: 'number', digits: 5 },
        },
      },
    },
    // evcc/updated: its alive indicator; nothing to keep, only that the feed runs.
    { topic: '{heartbeatTopic}', format: 'plain', optional: true, fields: {} },
  ],
  derived: {
    currency: { firstOf: ['_currencyPublished', '_currencySetting'] },
  },
});
