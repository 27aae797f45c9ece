import type { Messages } from './message-types.ts';
import { deviceDe, deviceVendorsDe } from './device-messages-de.ts';

const OCPP_FIELDS_DE = {
  chargePointId: {
    label: 'Ladepunkt-ID',
    help: 'Die ID, die Sie der Ladestation im Portal des Herstellers geben; die Seriennummer bietet sich an. 1 bis 48 Buchstaben, Ziffern oder . _ ~ -',
    invalid: 'Die Ladepunkt-ID besteht aus 1 bis 48 Buchstaben, Ziffern oder . _ ~ -',
  },
  password: {
    label: 'Passwort',
    help: 'Von diesem Hub für diese Ladestation erzeugt: tragen Sie es im Portal des Herstellers ein. Es wird nicht wieder angezeigt.',
    invalid: 'Das Passwort hat 16 bis 40 Zeichen ohne Leerzeichen.',
  },
};

const BMW_CLIENT_ID_DE = {
  label: 'CarData-Client-ID',
  help: 'Wird im Bereich CarData des Portals angezeigt, nachdem Sie sie erstellt haben.',
  invalid: 'Die Client-ID ist die, die das Portal zeigt, z. B. 1a2b3c4d-….',
};

/** BMW CarData, für BMW und MINI gleich; nur der Name des Portals unterscheidet sich. */
const BMW_STEPS_DE = (portal: string) => [
  `Mit BMW CarData kann der Hub Ihr Auto lesen (in der EU zugelassene Autos). Öffnen Sie im Webportal ${portal} den Bereich CarData, erstellen Sie eine CarData-Client-ID, `
    + 'beantragen Sie dort den Zugang zur CarData API, warten Sie eine Minute und beantragen Sie dann den Zugang zum CarData Stream.',
  'Wählen Sie in der Konfiguration des Datenstreams Ladestand, Reichweite, Ladestatus, Stecker, Ladeleistung und Kilometerstand aus (die Dokumentation des Hubs nennt die Schlüssel). Authentifizieren Sie dort kein Gerät: Das erledigt der Hub.',
  'Geben Sie dann unten die Client-ID ein und melden Sie sich an.',
];

export const de: Messages = {
  hubName: 'Home Energy Hub',
  heading: (vendor) => `${vendor} Ladestation verbinden`,
  optional: '(optional)',
  submit: 'Verbinden',
  cancel: 'Abbrechen',
  problemsHeading: 'Bitte korrigieren Sie Folgendes:',
  required: (label) => `Bitte geben Sie „${label}“ ein.`,
  tooLong: (label, max) => `„${label}“ darf höchstens ${max} Zeichen lang sein.`,
  invalid: (label) => `„${label}“ ist ungültig.`,
  probe: {
    UNREACHABLE: 'Die Ladestation hat nicht geantwortet. Ist sie eingeschaltet, die MQTT-API aktiviert und der Broker dieses Hubs eingetragen?',
    NOT_A_CHARGER: 'Mit diesen Angaben hat sich keine passende Ladestation gemeldet. Bitte prüfen Sie Ihre Eingaben.',
    TIMEOUT: 'Die Ladestation hat nicht rechtzeitig geantwortet. Bitte versuchen Sie es erneut.',
    REJECTED: 'Die Ladestation hat die Verbindung abgelehnt. Bitte prüfen Sie Ihre Eingaben.',
    OFFLINE: 'Die MQTT-Verbindung der Ladestation meldet sie als offline. Bitte prüfen Sie, ob sie eingeschaltet und mit dem Netzwerk verbunden ist.',
    HUB_LINK: 'Der Hub konnte nicht auf die Ladestation warten: Sein MQTT-Broker ist gerade nicht erreichbar. Bitte versuchen Sie es gleich noch einmal.',
    TAKEN: 'Diese Ladestation ist bereits mit dem Konto eines anderen Benutzers verbunden und kann hier nicht hinzugefügt werden.',
    FAILED: 'Die Ladestation konnte nicht erreicht werden. Bitte versuchen Sie es erneut.',
  },
  notSupported: {
    heading: 'Diese Ladestation kann nicht verbunden werden',
    body: (vendor) => `Dieser Hub kann keine Ladestationen von ${vendor} verbinden.`,
    back: 'Zurück zur App',
  },
  unknown: {
    heading: 'Unbekannter Link',
    body: 'Dieser Hub kennt diesen Verbindungslink nicht. Bitte starten Sie die Verbindung in Ihrer App erneut.',
  },
  used: {
    heading: 'Link bereits verwendet',
    body: 'Dieser Verbindungslink wurde bereits verwendet. Um eine weitere Ladestation oder ein weiteres Auto zu verbinden, starten Sie erneut in Ihrer App.',
  },
  expired: {
    heading: 'Link abgelaufen',
    body: 'Dieser Verbindungslink ist abgelaufen. Bitte starten Sie die Verbindung in Ihrer App erneut.',
    back: 'Zurück zur App',
  },
  badRequest: { heading: 'Formular nicht verstanden', body: 'Das Formular konnte nicht gelesen werden. Bitte laden Sie die Seite neu und versuchen Sie es erneut.' },
  tooLarge: { heading: 'Zu viele Daten', body: 'Das Formular hat mehr Daten gesendet, als der Hub annimmt. Bitte laden Sie die Seite neu und versuchen Sie es erneut.' },
  failure: { heading: 'Etwas ist schiefgegangen', body: 'Der Hub konnte diesen Schritt nicht abschließen. Bitte versuchen Sie es gleich noch einmal.' },
  vehicle: {
    heading: (vendor) => `Ihren ${vendor} verbinden`,
    login: (vendor) => `Mit ${vendor} anmelden`,
    failed: {
      REFUSED: 'Der Hersteller hat diese Angaben abgelehnt. Bitte prüfen Sie Ihre Eingaben so, wie das Portal des Herstellers sie zeigt.',
      DECLINED: 'Die Anmeldung wurde abgelehnt oder nicht abgeschlossen. Bitte versuchen Sie es erneut.',
      EXPIRED: 'Der Code ist abgelaufen, bevor er eingegeben wurde. Bitte melden Sie sich erneut an, um einen neuen Code zu erhalten.',
      UNREACHABLE: 'Der Dienst des Herstellers hat nicht geantwortet. Bitte versuchen Sie es gleich noch einmal.',
      NO_CAR: 'In diesem Konto wurde kein Auto gefunden, das dieser Hub lesen kann (oder nicht das, nach dem Ihre App gefragt hat).',
      QUOTA: 'Das Tageskontingent an Abrufen beim Hersteller ist aufgebraucht. Bitte versuchen Sie es morgen erneut.',
      TAKEN: 'Dieses Auto ist bereits mit dem Konto eines anderen Benutzers verbunden und kann hier nicht hinzugefügt werden.',
    },
    code: {
      heading: (vendor) => `Anmeldung bei ${vendor} bestätigen`,
      steps: (vendor) => [
        `Öffnen Sie mit der Schaltfläche unten die Anmeldeseite von ${vendor} (auf diesem oder einem anderen Gerät), melden Sie sich mit Ihrem ${vendor}-Konto an und geben Sie diesen Code ein:`,
      ],
      codeLabel: 'Ihr Code',
      open: (vendor) => `Seite von ${vendor} öffnen`,
      waiting: 'Diese Seite geht von selbst weiter, sobald Sie den Code bestätigt haben.',
      checkNow: 'Jetzt prüfen',
    },
    otherBrowser: {
      heading: 'Bitte in diesem Browser neu beginnen',
      body: 'Diese Seite kann nur in dem Browser fortgesetzt werden, in dem die Anmeldung beim Autohersteller begonnen wurde. Bitte starten Sie die Verbindung in Ihrer App erneut, im Browser, den Sie jetzt verwenden, und melden Sie sich von dort an.',
    },
    redirect: {
      heading: (vendor) => `Weiter zu ${vendor}`,
      body: (vendor) => `Sie werden zur Anmeldeseite von ${vendor} weitergeleitet. Nach der Anmeldung schickt ${vendor} Sie hierher zurück.`,
      continue: (vendor) => `Weiter zu ${vendor}`,
    },
    choose: {
      heading: 'Ihr Auto hinzufügen',
      body: (vendor) => `Sie sind bei ${vendor} angemeldet. Der Hub liest von dort Ladestand, Reichweite und Steckerstatus des Autos.`,
      car: 'Auto',
      charger: 'Lädt an',
      chargerHelp: 'Der Hersteller lässt den Hub das Laden nicht starten oder stoppen; der Hub tut es an dieser Ladestation.',
      noCharger: 'Später wählen',
      add: 'Auto hinzufügen',
      renew: 'Dieses Auto ist bereits auf diesem Hub: Erneutes Hinzufügen erneuert seine Anmeldung.',
    },
    notSupported: {
      heading: 'Dieses Auto kann nicht verbunden werden',
      body: (vendor) => `Dieser Hub kann keine Autos von ${vendor} verbinden.`,
    },
  },
  device: deviceDe,
  vendors: {
    ...deviceVendorsDe,
    BMW: {
      instructions: () => BMW_STEPS_DE('MyBMW'),
      fields: { clientId: BMW_CLIENT_ID_DE },
    },
    MINI: {
      instructions: () => BMW_STEPS_DE('MyMINI'),
      fields: { clientId: BMW_CLIENT_ID_DE },
    },
    VOLVO: {
      instructions: (hints) => [
        'Volvo lässt den Hub Ihr Auto über seine offizielle API lesen. Registrieren Sie sich einmalig auf developer.volvocars.com mit der E-Mail-Adresse Ihrer Volvo ID '
          + 'und legen Sie eine API-Anwendung an: Sie hat einen VCC API Key, eine Client-ID und ein Client-Secret.',
        `Wählen Sie in der Anwendung die Scopes openid, conve:vehicle_relation, conve:odometer_status und energy:state:read, tragen Sie ${hints['callbackUrl'] ?? 'die Rückrufadresse dieses Hubs'} `
          + 'als Redirect-URI ein und veröffentlichen Sie die Anwendung.',
        'Geben Sie dann unten Key, Client-ID und Secret ein und melden Sie sich mit Ihrer Volvo ID an.',
      ],
      fields: {
        vccApiKey: { label: 'VCC API Key', help: 'Der API-Schlüssel der Anwendung (primär oder sekundär), von developer.volvocars.com.', invalid: 'Der VCC API Key besteht aus Buchstaben und Ziffern.' },
        clientId: { label: 'Client-ID', help: 'Die OAuth-Client-ID der Anwendung.', invalid: 'Die Client-ID ist ungültig.' },
        clientSecret: { label: 'Client-Secret', help: 'Das OAuth-Client-Secret der Anwendung. Der Hub bewahrt es auf und zeigt es nie wieder an.', invalid: 'Das Client-Secret ist ungültig.' },
      },
    },
    ZAPTEC: {
      instructions: (hints) => [
        'Im Zaptec Portal muss die Ladestation in einer Installation vom Typ „Operator“ sein, und Ihre Benutzergruppe braucht „Allow OCPP 1.6J“. '
          + 'Öffnen Sie in der Installation Einstellungen → Authentifizierung und wählen Sie „OCPP 1.6J-Authentifizierung“ (nicht die Cloud-Variante), ohne Legacy-OCPP-Verhalten.',
        `Tragen Sie als Central-System-URL ${hints['ocppUrl'] ?? 'die OCPP-Adresse dieses Hubs'}/ gefolgt von der Ladepunkt-ID unten ein, z. B. ${hints['ocppUrl'] ?? ''}/ZAP000123. `
          + 'Als Passwort tragen Sie das Passwort unten ein. Speichern Sie, während die Ladestation online ist und nicht lädt.',
        'Sobald sich die Ladestation mit diesem Hub verbunden hat, klicken Sie auf Verbinden.',
      ],
      fields: OCPP_FIELDS_DE,
    },
    EASEE: {
      instructions: (hints) => [
        'Easee-Ladestationen (Firmware 328 oder neuer) werden einmalig über Easees OCPP-Commissioning-API auf OCPP umgestellt (https://api.easee.com/local-ocpp, angemeldet mit Ihrem Easee-Konto; der Standort muss Easee als Betreiber haben).',
        `Verbindung speichern: POST /v1/connection-details/{Seriennummer} mit connectivityMode „DualProtocol“, websocketConnectionArgs.url „${hints['ocppUrl'] ?? ''}“ `
          + 'sowie Ladepunkt-ID und Passwort von unten als chargePointId und basicAuthPassword. Danach mit derselben API auf die Ladestation anwenden.',
        'Sobald sich die Ladestation mit diesem Hub verbunden hat, klicken Sie auf Verbinden.',
      ],
      fields: OCPP_FIELDS_DE,
    },
    GO_E: {
      instructions: (hints) => [
        'Öffnen Sie in der go-e App die Interneteinstellungen der Ladestation, aktivieren Sie die MQTT-API und tragen Sie den Broker dieses Hubs als MQTT-Broker ein'
          + (hints['broker'] ? `: ${hints['broker']}.` : '.'),
        'Geben Sie dann unten die Seriennummer der Ladestation ein.',
      ],
      fields: {
        serial: {
          label: 'Seriennummer',
          help: 'Steht in der go-e App und auf dem Typenschild: 6 bis 12 Ziffern.',
          invalid: 'Die Seriennummer besteht aus 6 bis 12 Ziffern.',
        },
        topicPrefix: {
          label: 'MQTT-Topic-Präfix',
          help: 'Nur ändern, wenn Sie es in der go-e App geändert haben. Standard: go-eCharger.',
          invalid: 'Das Topic-Präfix darf Buchstaben, Ziffern, - und _ enthalten, Ebenen durch / getrennt.',
        },
      },
    },
  },
};
