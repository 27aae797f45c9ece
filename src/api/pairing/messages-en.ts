import type { Messages } from './messages.ts';

export const en: Messages = {
  hubName: 'Home energy hub',
  heading: (vendor) => `Connect your ${vendor} charger`,
  optional: '(optional)',
  submit: 'Connect',
  cancel: 'Cancel',
  problemsHeading: 'Please correct the following:',
  required: (label) => `Please enter the ${label.toLowerCase()}.`,
  tooLong: (label, max) => `The ${label.toLowerCase()} can be at most ${max} characters long.`,
  invalid: (label) => `The ${label.toLowerCase()} is not valid.`,
  probe: {
    UNREACHABLE: 'The charger did not answer. Is it switched on, is its MQTT API enabled and does it use this hub\'s broker?',
    NOT_A_CHARGER: 'No matching charger answered with these details. Please check what you entered.',
    TIMEOUT: 'The charger did not answer in time. Please try again.',
    REJECTED: 'The charger refused the connection. Please check what you entered.',
    OFFLINE: 'The charger\'s MQTT connection reports it offline. Please check that it is switched on and connected to the network.',
    HUB_LINK: 'The hub could not listen for the charger: its MQTT broker is not reachable right now. Please try again in a moment.',
    TAKEN: 'This charger is already connected to another user\'s account, so it cannot be added here.',
    FAILED: 'The charger could not be reached. Please try again.',
  },
  notSupported: {
    heading: 'This charger cannot be connected',
    body: (vendor) => `This hub cannot connect ${vendor} chargers.`,
    back: 'Back to the app',
  },
  unknown: {
    heading: 'Unknown link',
    body: 'This hub does not know this connection link. Please start connecting again from your app.',
  },
  used: {
    heading: 'Link already used',
    body: 'This connection link has already been used. To connect another charger, start again from your app.',
  },
  expired: {
    heading: 'Link expired',
    body: 'This connection link has expired. Please start connecting again from your app.',
    back: 'Back to the app',
  },
  badRequest: { heading: 'Form not understood', body: 'The form could not be read. Please reload the page and try again.' },
  tooLarge: { heading: 'Too much data', body: 'The form sent more data than the hub accepts. Please reload the page and try again.' },
  failure: { heading: 'Something went wrong', body: 'The hub could not complete this step. Please try again in a moment.' },
  vendors: {
    GO_E: {
      instructions: (hints) => [
        'In the go-e app, open the charger\'s Internet settings, enable the MQTT API and enter this hub\'s broker as the MQTT broker'
          + (hints['broker'] ? `: ${hints['broker']}.` : '.'),
        'Then enter the charger\'s serial number below.',
      ],
      fields: {
        serial: {
          label: 'Serial number',
          help: 'Shown in the go-e app and on the type plate: 6 to 12 digits.',
          invalid: 'The serial number is 6 to 12 digits.',
        },
        topicPrefix: {
          label: 'MQTT topic prefix',
          help: 'Change it only if you changed it in the go-e app. Default: go-eCharger.',
          invalid: 'The topic prefix may hold letters, digits, - and _, with levels separated by /.',
        },
      },
    },
  },
};
