// The English words of the connect page of HVAC units, home-power devices and tariffs
// (device-flow.ts): its headings, failures and choice, and each vendor's instructions and fields.
import type { DeviceMessages, VendorText } from './message-types.ts';

const HOST_EN = { label: 'Address', help: 'The device\'s IP address or host name on your home network, e.g. 192.168.1.50.', invalid: 'The address is an IP address or a host name.' };
const PORT_EN = { label: 'Port', help: 'Change it only if the device answers on another port.', invalid: 'The port is a number from 1 to 65535.' };
const TOPIC_INVALID_EN = 'A topic holds letters, digits and other signs, with levels separated by /, without spaces, # or +.';
const broker = (hints: Readonly<Record<string, string>>) => (hints['broker'] ? ` (${hints['broker']})` : '');

const MODBUS_EN = (maker: string): VendorText => ({
  instructions: () => [
    `Enable Modbus TCP on the ${maker} inverter (in its web interface or app), then enter its address below.`,
    'The hub looks for the inverter, its battery and its meter; when it finds several, you choose which one to add.',
  ],
  fields: { host: HOST_EN, port: { ...PORT_EN, help: 'Change it only if the inverter\'s Modbus TCP port is not 502.' } },
});

export const deviceEn: DeviceMessages = {
  heading: {
    hvac: (vendor) => `Connect your ${vendor} heating or air conditioning`,
    homePower: (vendor) => `Connect your ${vendor} device`,
    tariffs: (vendor) => `Connect your ${vendor} tariff`,
  },
  probe: {
    UNREACHABLE: 'The device did not answer. Is it switched on and are the details right?',
    NOT_A_CHARGER: 'No matching device answered with these details. Please check what you entered.',
    TIMEOUT: 'The device did not answer in time. Please try again.',
    REJECTED: 'The device refused the login. Please check what you entered.',
    OFFLINE: 'The device\'s bridge reports it offline. Please check that it is switched on and connected.',
    HUB_LINK: 'The hub could not listen for the device: its MQTT broker is not reachable right now. Please try again in a moment.',
    TAKEN: 'This device is already connected to another user\'s account, so it cannot be added here.',
    FAILED: 'The device could not be reached. Please try again.',
  },
  tooMany: 'Too many attempts with this link. Please start again from your app.',
  choose: {
    legend: 'Which one?',
    help: 'The hub found more than one device at this address. Choose the one to add.',
    kinds: { pvInverter: 'PV inverter', battery: 'Battery', meter: 'Meter' },
  },
  notSupported: {
    hvac: { heading: 'This unit cannot be connected', body: (vendor) => `This hub cannot reach ${vendor} heating or air conditioning.` },
    homePower: { heading: 'This device cannot be connected', body: (vendor) => `This hub cannot reach ${vendor} devices.` },
    tariffs: { heading: 'This tariff cannot be connected', body: (vendor) => `This hub cannot read ${vendor} prices.` },
  },
};

export const deviceVendorsEn: Record<string, VendorText> = {
  'hvac:DAIKIN': {
    instructions: (hints) => [
      'Enter the address of the unit\'s Daikin Wi-Fi adapter (BRP069, BRP084) on your home network.',
      `Or, for an Altherma heat pump read by ESPAltherma, enter ESPAltherma's MQTT topic prefix instead; ESPAltherma must publish to this hub's broker${broker(hints)}.`,
    ],
    fields: {
      host: { ...HOST_EN, help: 'The adapter\'s IP address or host name, e.g. 192.168.1.60.' },
      port: PORT_EN,
      uuid: { label: 'Adapter uuid (BRP072C only)', help: 'Only for a BRP072C adapter: the uuid registered with its key. The hub keeps it and never shows it again.', invalid: 'The uuid is 32 hex digits (dashes allowed).' },
      espalthermaPrefix: { label: 'ESPAltherma topic prefix', help: 'As set in ESPAltherma, e.g. espaltherma.', invalid: TOPIC_INVALID_EN },
    },
  },
  'hvac:VAILLANT': {
    instructions: (hints) => [
      `The hub reads a Vaillant controller (VRC700, VRC720) through ebusd, which must publish to this hub's broker${broker(hints)} (ebusd --mqtthost).`,
      'Change the fields below only if you changed them in ebusd.',
    ],
    fields: {
      prefix: { label: 'ebusd topic prefix', help: 'The first part of ebusd\'s --mqtttopic. Default: ebusd.', invalid: TOPIC_INVALID_EN },
      circuit: { label: 'Controller circuit', help: 'The controller\'s circuit in ebusd: 700 for a VRC700, 720 for a VRC720. Default: 700.', invalid: 'The circuit is letters, digits, . _ or -.' },
      zone: { label: 'Zone', help: 'The heating zone, 1 to 3. Default: 1.', invalid: 'The zone is 1, 2 or 3.' },
    },
  },
  'hvac:VIESSMANN': {
    instructions: (hints) => [
      `The hub reads a Viessmann heat pump or boiler through open3e in listener mode, which must publish to this hub's broker${broker(hints)}.`,
      'Change the fields below only if you changed them in open3e.',
    ],
    fields: {
      prefix: { label: 'open3e topic', help: 'The topic of open3e\'s -m option. Default: open3e.', invalid: TOPIC_INVALID_EN },
      ecu: { label: 'ECU address', help: 'In hex without 0x, e.g. 680 for the main controller. Default: 680.', invalid: 'The ECU address is three hex digits, e.g. 680.' },
    },
  },
  'homePower:FRONIUS': MODBUS_EN('Fronius'),
  'homePower:SMA': MODBUS_EN('SMA'),
  'homePower:HUAWEI': MODBUS_EN('Huawei SUN2000'),
  'homePower:ENPHASE': {
    instructions: () => [
      'Enter the address of the Enphase gateway (IQ Gateway, Envoy) on your home network and your owner token.',
      'Get the token at entrez.enphaseenergy.com with your Enlighten login; it is valid for a year. The hub keeps it and never shows it again.',
    ],
    fields: {
      host: { ...HOST_EN, help: 'The gateway\'s IP address or host name, e.g. envoy.local.' },
      port: PORT_EN,
      token: { label: 'Owner token', help: 'The long token from entrez.enphaseenergy.com.', invalid: 'The token is three parts separated by dots, as Enphase gives it.' },
    },
  },
  'homePower:TESLA': {
    instructions: () => [
      'Enter the address of the Powerwall gateway on your home network and its customer login.',
      'The password is the customer password of the gateway (by default the last 5 characters of its serial number). The hub keeps it and never shows it again.',
    ],
    fields: {
      host: { ...HOST_EN, help: 'The gateway\'s IP address or host name, e.g. 192.168.1.70.' },
      port: PORT_EN,
      email: { label: 'Email', help: 'The customer email set on the gateway.', invalid: 'The email is name@domain.' },
      password: { label: 'Password', help: 'The gateway\'s customer password.', invalid: 'The password has no spaces.' },
    },
  },
  tariffs: {
    instructions: (hints) => [
      `The hub reads your tariff's current price from the household's broker${broker(hints)}: evcc publishes it on evcc/site/tariffGrid, which is the default.`,
      'Any other topic that carries the price per kWh as a plain number works too; then enter the currency.',
    ],
    fields: {
      priceTopic: { label: 'Price topic', help: 'Default: evcc/site/tariffGrid.', invalid: TOPIC_INVALID_EN },
      currency: { label: 'Currency', help: 'Three capital letters, e.g. EUR. Default: the one evcc publishes, else EUR.', invalid: 'The currency is three capital letters, e.g. EUR.' },
    },
  },
};
