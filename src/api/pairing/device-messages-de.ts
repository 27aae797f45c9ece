// Die deutschen Texte der Verbindungsseite für Heizung/Klima, Heimspeicher/PV/Zähler und Tarife
// (device-flow.ts).
import type { DeviceMessages, VendorText } from './message-types.ts';

const HOST_DE = { label: 'Adresse', help: 'Die IP-Adresse oder der Hostname des Geräts im Heimnetz, z. B. 192.168.1.50.', invalid: 'Die Adresse ist eine IP-Adresse oder ein Hostname.' };
const PORT_DE = { label: 'Port', help: 'Nur ändern, wenn das Gerät auf einem anderen Port antwortet.', invalid: 'Der Port ist eine Zahl von 1 bis 65535.' };
const TOPIC_INVALID_DE = 'Ein Topic besteht aus Buchstaben, Ziffern und Zeichen, Ebenen getrennt durch /, ohne Leerzeichen, # oder +.';
const broker = (hints: Readonly<Record<string, string>>) => (hints['broker'] ? ` (${hints['broker']})` : '');

const MODBUS_DE = (maker: string): VendorText => ({
  instructions: () => [
    `Aktivieren Sie Modbus TCP am ${maker}-Wechselrichter (in seiner Weboberfläche oder App) und geben Sie unten seine Adresse ein.`,
    'Der Hub sucht den Wechselrichter, seinen Speicher und seinen Zähler; findet er mehrere, wählen Sie, welches Gerät hinzugefügt wird.',
  ],
  fields: { host: HOST_DE, port: { ...PORT_DE, help: 'Nur ändern, wenn der Modbus-TCP-Port des Wechselrichters nicht 502 ist.' } },
});

export const deviceDe: DeviceMessages = {
  heading: {
    hvac: (vendor) => `${vendor}-Heizung oder -Klimagerät verbinden`,
    homePower: (vendor) => `${vendor}-Gerät verbinden`,
    tariffs: (vendor) => `${vendor}-Tarif verbinden`,
  },
  probe: {
    UNREACHABLE: 'Das Gerät hat nicht geantwortet. Ist es eingeschaltet und stimmen die Angaben?',
    NOT_A_CHARGER: 'Mit diesen Angaben hat kein passendes Gerät geantwortet. Bitte prüfen Sie Ihre Eingaben.',
    TIMEOUT: 'Das Gerät hat nicht rechtzeitig geantwortet. Bitte versuchen Sie es erneut.',
    REJECTED: 'Das Gerät hat die Anmeldung abgelehnt. Bitte prüfen Sie Ihre Eingaben.',
    OFFLINE: 'Die Brücke des Geräts meldet es als offline. Bitte prüfen Sie, ob es eingeschaltet und verbunden ist.',
    HUB_LINK: 'Der Hub konnte nicht auf das Gerät hören: Sein MQTT-Broker ist gerade nicht erreichbar. Bitte versuchen Sie es gleich noch einmal.',
    TAKEN: 'Dieses Gerät ist bereits mit dem Konto eines anderen Benutzers verbunden und kann hier nicht hinzugefügt werden.',
    FAILED: 'Das Gerät war nicht erreichbar. Bitte versuchen Sie es erneut.',
  },
  tooMany: 'Zu viele Versuche mit diesem Link. Bitte beginnen Sie in Ihrer App neu.',
  choose: {
    legend: 'Welches Gerät?',
    help: 'Der Hub hat unter dieser Adresse mehr als ein Gerät gefunden. Wählen Sie das hinzuzufügende.',
    kinds: { pvInverter: 'PV-Wechselrichter', battery: 'Speicher', meter: 'Zähler' },
  },
  notSupported: {
    hvac: { heading: 'Dieses Gerät kann nicht verbunden werden', body: (vendor) => `Dieser Hub erreicht keine ${vendor}-Heizungen oder -Klimageräte.` },
    homePower: { heading: 'Dieses Gerät kann nicht verbunden werden', body: (vendor) => `Dieser Hub erreicht keine ${vendor}-Geräte.` },
    tariffs: { heading: 'Dieser Tarif kann nicht verbunden werden', body: (vendor) => `Dieser Hub kann keine ${vendor}-Preise lesen.` },
  },
};

export const deviceVendorsDe: Record<string, VendorText> = {
  'hvac:DAIKIN': {
    instructions: (hints) => [
      'Geben Sie die Adresse des Daikin-WLAN-Adapters (BRP069, BRP084) des Geräts im Heimnetz ein.',
      `Oder, für eine Altherma-Wärmepumpe über ESPAltherma, stattdessen das MQTT-Topic-Präfix von ESPAltherma; ESPAltherma muss an den Broker dieses Hubs senden${broker(hints)}.`,
    ],
    fields: {
      host: { ...HOST_DE, help: 'Die IP-Adresse oder der Hostname des Adapters, z. B. 192.168.1.60.' },
      port: PORT_DE,
      uuid: { label: 'Adapter-UUID (nur BRP072C)', help: 'Nur für einen BRP072C-Adapter: die mit seinem Schlüssel registrierte UUID. Der Hub speichert sie und zeigt sie nie wieder an.', invalid: 'Die UUID besteht aus 32 Hex-Ziffern (Bindestriche erlaubt).' },
      espalthermaPrefix: { label: 'ESPAltherma-Topic-Präfix', help: 'Wie in ESPAltherma eingestellt, z. B. espaltherma.', invalid: TOPIC_INVALID_DE },
    },
  },
  'hvac:VAILLANT': {
    instructions: (hints) => [
      `Der Hub liest einen Vaillant-Regler (VRC700, VRC720) über ebusd, das an den Broker dieses Hubs senden muss${broker(hints)} (ebusd --mqtthost).`,
      'Ändern Sie die Felder unten nur, wenn Sie sie in ebusd geändert haben.',
    ],
    fields: {
      prefix: { label: 'ebusd-Topic-Präfix', help: 'Der erste Teil von ebusds --mqtttopic. Standard: ebusd.', invalid: TOPIC_INVALID_DE },
      circuit: { label: 'Regler-Circuit', help: 'Der Circuit des Reglers in ebusd: 700 für einen VRC700, 720 für einen VRC720. Standard: 700.', invalid: 'Der Circuit besteht aus Buchstaben, Ziffern, . _ oder -.' },
      zone: { label: 'Zone', help: 'Die Heizzone, 1 bis 3. Standard: 1.', invalid: 'Die Zone ist 1, 2 oder 3.' },
    },
  },
  'hvac:VIESSMANN': {
    instructions: (hints) => [
      `Der Hub liest eine Viessmann-Wärmepumpe oder -Heizung über open3e im Listener-Modus, das an den Broker dieses Hubs senden muss${broker(hints)}.`,
      'Ändern Sie die Felder unten nur, wenn Sie sie in open3e geändert haben.',
    ],
    fields: {
      prefix: { label: 'open3e-Topic', help: 'Das Topic der Option -m von open3e. Standard: open3e.', invalid: TOPIC_INVALID_DE },
      ecu: { label: 'ECU-Adresse', help: 'Hexadezimal ohne 0x, z. B. 680 für den Hauptregler. Standard: 680.', invalid: 'Die ECU-Adresse sind drei Hex-Ziffern, z. B. 680.' },
    },
  },
  'homePower:FRONIUS': MODBUS_DE('Fronius'),
  'homePower:SMA': MODBUS_DE('SMA'),
  'homePower:HUAWEI': MODBUS_DE('Huawei-SUN2000'),
  'homePower:ENPHASE': {
    instructions: () => [
      'Geben Sie die Adresse des Enphase-Gateways (IQ Gateway, Envoy) im Heimnetz und Ihr Besitzer-Token ein.',
      'Das Token erhalten Sie auf entrez.enphaseenergy.com mit Ihrem Enlighten-Login; es gilt ein Jahr. Der Hub speichert es und zeigt es nie wieder an.',
    ],
    fields: {
      host: { ...HOST_DE, help: 'Die IP-Adresse oder der Hostname des Gateways, z. B. envoy.local.' },
      port: PORT_DE,
      token: { label: 'Besitzer-Token', help: 'Das lange Token von entrez.enphaseenergy.com.', invalid: 'Das Token besteht aus drei durch Punkte getrennten Teilen, wie Enphase es ausgibt.' },
    },
  },
  'homePower:TESLA': {
    instructions: () => [
      'Geben Sie die Adresse des Powerwall-Gateways im Heimnetz und seine Kunden-Anmeldung ein.',
      'Das Passwort ist das Kundenpasswort des Gateways (standardmäßig die letzten 5 Zeichen seiner Seriennummer). Der Hub speichert es und zeigt es nie wieder an.',
    ],
    fields: {
      host: { ...HOST_DE, help: 'Die IP-Adresse oder der Hostname des Gateways, z. B. 192.168.1.70.' },
      port: PORT_DE,
      email: { label: 'E-Mail', help: 'Die am Gateway eingestellte Kunden-E-Mail.', invalid: 'Die E-Mail lautet name@domain.' },
      password: { label: 'Passwort', help: 'Das Kundenpasswort des Gateways.', invalid: 'Das Passwort enthält keine Leerzeichen.' },
    },
  },
  tariffs: {
    instructions: (hints) => [
      `Der Hub liest den aktuellen Preis Ihres Tarifs vom Broker des Haushalts${broker(hints)}: evcc veröffentlicht ihn unter evcc/site/tariffGrid, dem Standard.`,
      'Jedes andere Topic mit dem Preis pro kWh als einfache Zahl geht auch; geben Sie dann die Währung an.',
    ],
    fields: {
      priceTopic: { label: 'Preis-Topic', help: 'Standard: evcc/site/tariffGrid.', invalid: TOPIC_INVALID_DE },
      currency: { label: 'Währung', help: 'Drei Großbuchstaben, z. B. EUR. Standard: die von evcc veröffentlichte, sonst EUR.', invalid: 'Die Währung sind drei Großbuchstaben, z. B. EUR.' },
    },
  },
};
