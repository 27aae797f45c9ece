// A tariff whose current price arrives on an MQTT topic. No supplier offers a local price feed
// (Tibber, Ostrom, Octopus Energy and Luox publish prices only through their cloud APIs), so the
// local path is a home system that already fetches them and republishes the current price: the
// de-facto convention is evcc's `evcc/site/tariffGrid` (docs.evcc.io, integrations/mqtt-api), the
// current grid price as a plain number in currency per kWh. Any topic with a plain number works.
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
    currency: { default: 'EUR', pattern: '[A-Z]{3}', description: 'the ISO 4217 code of the price\'s currency' },
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
      fields: { pricePerKwh: { as: 'number', digits: 5 }, currency: { as: 'string', fromSettings: '{currency}' } },
    },
  ],
});
