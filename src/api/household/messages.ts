// The household page's words, per language (the languages of the pairing pages). A missing text is
// a type error. The page's script takes them from a JSON block, so it carries no words of its own:
// every figure is named in plain words, never by the API's field names (the browser test checks).
import type { Lang } from '../pairing/messages.ts';
import type { CommandState, CommandType } from '../../domain/vocabulary.ts';

type ChargingState = 'UNPLUGGED' | 'PREPARING' | 'CHARGING' | 'FINISHED' | 'STOPPED' | 'FAULT';
type HvacMode = 'HEAT' | 'COOL' | 'DRY' | 'AUTO' | 'REDUCED' | 'OFF';

export interface HomeWords {
  title: string;
  keyIntro: string;
  keyLabel: string;
  keySubmit: string;
  keyRefused: string;
  signOut: string;
  /** Shown under the header when the key is read-only (the page sends no commands either way). */
  readOnly: string;
  household: string;
  flows: string;
  pv: string;
  grid: string;
  home: string;
  battery: string;
  car: string;
  importing: string;
  exporting: string;
  charging: string;
  discharging: string;
  idle: string;
  producing: string;
  notProducing: string;
  using: string;
  today: string;
  costToday: string;
  /** After the cost: what it is made of (the grid import of today's hours with a price). */
  costBasis: string;
  priceNow: string;
  noPrice: string;
  cheapestAhead: string;
  /** Today's energy in the order shown, each named after the field of /home/today it shows (its key + 'Kwh'). */
  energyToday: Record<'pv' | 'gridImport' | 'gridExport' | 'batteryCharge' | 'batteryDischarge' | 'car' | 'home', string>;
  selfSufficiency: string;
  /** Today without a 5-minute point yet (a fresh hub, just after midnight). */
  todayEmpty: string;
  devices: string;
  curves: string;
  curvesEmpty: string;
  online: string;
  offline: string;
  lastUpdate: string;
  details: string;
  values: string;
  binding: string;
  commands: string;
  noCommands: string;
  streamLost: string;
  /** An offline device whose binding no driver of the hub runs. */
  noDriver: string;
  /** An offline device the hub has had no answer from (since it started, when no time is known). */
  noAnswer: string;
  /** An offline device: the hub saw its last answer then. */
  noAnswerSince: string;
  problem: string;
  pluggedIn: string;
  notPlugged: string;
  chargesAt: string;
  carHere: string;
  room: string;
  setTo: string;
  outside: string;
  range: string;
  chargingStates: Record<ChargingState, string>;
  hvacModes: Record<HvacMode, string>;
  commandTypes: Record<CommandType, string>;
  commandStates: Record<CommandState, string>;
  kinds: Record<'battery' | 'pvInverter' | 'meter' | 'hvac' | 'charger' | 'vehicle' | 'tariff', string>;
  series: Record<'pv' | 'home' | 'grid' | 'soc' | 'price', string>;
}

const en: HomeWords = {
  title: 'Household', keyIntro: 'Enter an API key of this hub. It is kept in this browser tab only.', keyLabel: 'API key', keySubmit: 'Show',
  keyRefused: 'The hub refused this key.', signOut: 'Forget the key', readOnly: 'This key is read-only: it shows the household, but cannot send commands or delete devices.', household: 'Household', flows: 'Now', pv: 'Solar', grid: 'Grid', home: 'House',
  battery: 'Battery', car: 'Car', importing: 'buying', exporting: 'selling', charging: 'charging', discharging: 'discharging', idle: 'resting',
  producing: 'producing', notProducing: 'not producing', using: 'using',
  today: 'Today', costToday: 'Cost so far', costBasis: 'bought from the grid', priceNow: 'Price now', noPrice: 'No price known yet', cheapestAhead: 'Cheapest ahead',
  energyToday: { pv: 'From solar', gridImport: 'Bought from the grid', gridExport: 'Sold to the grid', batteryCharge: 'Into the battery', batteryDischarge: 'Out of the battery', car: 'Into the car', home: 'Used by the house' },
  selfSufficiency: 'Self-sufficiency', todayEmpty: 'The day\'s energy appears once the first 5 minutes are over.', devices: 'Devices', curves: 'Last 48 hours',
  curvesEmpty: 'No points yet: they appear as the hub hears from the devices.', online: 'online', offline: 'offline', lastUpdate: 'Last update', details: 'Technical details', values: 'Values',
  binding: 'Reached at', commands: 'Commands', noCommands: 'none', streamLost: 'Live updates interrupted; reconnecting…',
  noDriver: 'No driver of this hub reaches this device.', noAnswer: 'No answer from this device.', noAnswerSince: 'No answer since', problem: 'Problem',
  pluggedIn: 'plugged in', notPlugged: 'not plugged in', chargesAt: 'Charges at', carHere: 'Car', room: 'Room', setTo: 'set to', outside: 'outside', range: 'range',
  chargingStates: { UNPLUGGED: 'not plugged in', PREPARING: 'getting ready', CHARGING: 'charging', FINISHED: 'fully charged', STOPPED: 'charging stopped', FAULT: 'fault' },
  hvacModes: { HEAT: 'heating', COOL: 'cooling', DRY: 'drying', AUTO: 'automatic', REDUCED: 'reduced', OFF: 'off' },
  commandTypes: {
    CHARGING_START: 'Charging started', CHARGING_STOP: 'Charging stopped', SET_CHARGING_CURRENT: 'Charging current set', SET_CHARGING_PHASES: 'Phases set',
    SET_CHARGING_SCHEDULE: 'Charging plan set', SET_TEMPERATURE: 'Temperature set', SET_MODE: 'Mode set', SET_SCHEDULE: 'Schedule set', POWER_BOOST: 'Boost',
  },
  commandStates: { PENDING: 'waiting', EXECUTED: 'done', FAILED: 'failed' },
  kinds: { battery: 'Battery', pvInverter: 'Solar inverter', meter: 'Meter', hvac: 'Heating / cooling', charger: 'Charger', vehicle: 'Car', tariff: 'Tariff' },
  series: { pv: 'Solar kW', home: 'House kW', grid: 'Grid kW', soc: 'Battery %', price: 'Price per kWh' },
};

const de: HomeWords = {
  title: 'Haushalt', keyIntro: 'Geben Sie einen API-Schlüssel dieses Hubs ein. Er bleibt nur in diesem Browser-Tab.', keyLabel: 'API-Schlüssel', keySubmit: 'Anzeigen',
  keyRefused: 'Der Hub hat diesen Schlüssel abgelehnt.', signOut: 'Schlüssel vergessen', readOnly: 'Dieser Schlüssel ist schreibgeschützt: Er zeigt den Haushalt, kann aber keine Befehle senden und keine Geräte löschen.', household: 'Haushalt', flows: 'Jetzt', pv: 'Solar', grid: 'Netz', home: 'Haus',
  battery: 'Batterie', car: 'Auto', importing: 'Bezug', exporting: 'Einspeisung', charging: 'lädt', discharging: 'entlädt', idle: 'ruht',
  producing: 'erzeugt', notProducing: 'erzeugt nichts', using: 'verbraucht',
  today: 'Heute', costToday: 'Kosten bisher', costBasis: 'aus dem Netz bezogen', priceNow: 'Preis jetzt', noPrice: 'Noch kein Preis bekannt', cheapestAhead: 'Am günstigsten',
  energyToday: { pv: 'Von der Solaranlage', gridImport: 'Aus dem Netz', gridExport: 'Ins Netz eingespeist', batteryCharge: 'In die Batterie', batteryDischarge: 'Aus der Batterie', car: 'Ins Auto geladen', home: 'Verbrauch im Haus' },
  selfSufficiency: 'Autarkie', todayEmpty: 'Die Energie des Tages erscheint nach den ersten 5 Minuten.', devices: 'Geräte', curves: 'Letzte 48 Stunden',
  curvesEmpty: 'Noch keine Punkte: sie erscheinen, sobald der Hub von den Geräten hört.', online: 'online', offline: 'offline', lastUpdate: 'Letzte Meldung', details: 'Technische Details', values: 'Werte',
  binding: 'Erreichbar unter', commands: 'Befehle', noCommands: 'keine', streamLost: 'Live-Daten unterbrochen; neue Verbindung…',
  noDriver: 'Kein Treiber dieses Hubs erreicht dieses Gerät.', noAnswer: 'Keine Antwort von diesem Gerät.', noAnswerSince: 'Keine Antwort seit', problem: 'Problem',
  pluggedIn: 'angesteckt', notPlugged: 'nicht angesteckt', chargesAt: 'Lädt an', carHere: 'Auto', room: 'Raum', setTo: 'eingestellt auf', outside: 'außen', range: 'Reichweite',
  chargingStates: { UNPLUGGED: 'nicht angesteckt', PREPARING: 'bereitet vor', CHARGING: 'lädt', FINISHED: 'voll geladen', STOPPED: 'Laden gestoppt', FAULT: 'Störung' },
  hvacModes: { HEAT: 'heizt', COOL: 'kühlt', DRY: 'entfeuchtet', AUTO: 'automatisch', REDUCED: 'abgesenkt', OFF: 'aus' },
  commandTypes: {
    CHARGING_START: 'Laden gestartet', CHARGING_STOP: 'Laden gestoppt', SET_CHARGING_CURRENT: 'Ladestrom eingestellt', SET_CHARGING_PHASES: 'Phasen eingestellt',
    SET_CHARGING_SCHEDULE: 'Ladeplan eingestellt', SET_TEMPERATURE: 'Temperatur eingestellt', SET_MODE: 'Betriebsart eingestellt', SET_SCHEDULE: 'Zeitplan eingestellt', POWER_BOOST: 'Schnellheizen',
  },
  commandStates: { PENDING: 'wartet', EXECUTED: 'erledigt', FAILED: 'fehlgeschlagen' },
  kinds: { battery: 'Batterie', pvInverter: 'Wechselrichter', meter: 'Zähler', hvac: 'Heizung / Klima', charger: 'Ladestation', vehicle: 'Auto', tariff: 'Tarif' },
  series: { pv: 'Solar kW', home: 'Haus kW', grid: 'Netz kW', soc: 'Batterie %', price: 'Preis pro kWh' },
};

const fr: HomeWords = {
  title: 'Foyer', keyIntro: 'Saisissez une clé d’API de ce hub. Elle n’est gardée que dans cet onglet.', keyLabel: 'Clé d’API', keySubmit: 'Afficher',
  keyRefused: 'Le hub a refusé cette clé.', signOut: 'Oublier la clé', readOnly: 'Cette clé est en lecture seule : elle montre le foyer, mais ne peut ni envoyer de commandes ni supprimer d’appareils.', household: 'Foyer', flows: 'Maintenant', pv: 'Solaire', grid: 'Réseau', home: 'Maison',
  battery: 'Batterie', car: 'Voiture', importing: 'soutirage', exporting: 'injection', charging: 'en charge', discharging: 'en décharge', idle: 'au repos',
  producing: 'produit', notProducing: 'ne produit pas', using: 'consomme',
  today: 'Aujourd’hui', costToday: 'Coût à cette heure', costBasis: 'soutirés du réseau', priceNow: 'Prix actuel', noPrice: 'Pas encore de prix connu', cheapestAhead: 'Les moins chères',
  energyToday: { pv: 'Du solaire', gridImport: 'Soutiré du réseau', gridExport: 'Injecté au réseau', batteryCharge: 'Dans la batterie', batteryDischarge: 'De la batterie', car: 'Chargé dans la voiture', home: 'Consommé par la maison' },
  selfSufficiency: 'Autonomie', todayEmpty: 'L’énergie du jour apparaît après les 5 premières minutes.', devices: 'Appareils', curves: 'Dernières 48 heures',
  curvesEmpty: 'Pas encore de points : ils apparaissent dès que le hub entend les appareils.', online: 'en ligne', offline: 'hors ligne', lastUpdate: 'Dernière mise à jour', details: 'Détails techniques', values: 'Valeurs',
  binding: 'Joint à', commands: 'Commandes', noCommands: 'aucune', streamLost: 'Données en direct interrompues ; reconnexion…',
  noDriver: 'Aucun pilote de ce hub n’atteint cet appareil.', noAnswer: 'Pas de réponse de cet appareil.', noAnswerSince: 'Pas de réponse depuis', problem: 'Problème',
  pluggedIn: 'branchée', notPlugged: 'non branchée', chargesAt: 'Se charge à', carHere: 'Voiture', room: 'Pièce', setTo: 'réglé sur', outside: 'dehors', range: 'autonomie',
  chargingStates: { UNPLUGGED: 'non branchée', PREPARING: 'se prépare', CHARGING: 'en charge', FINISHED: 'chargée', STOPPED: 'charge arrêtée', FAULT: 'en défaut' },
  hvacModes: { HEAT: 'chauffe', COOL: 'refroidit', DRY: 'déshumidifie', AUTO: 'automatique', REDUCED: 'réduit', OFF: 'arrêté' },
  commandTypes: {
    CHARGING_START: 'Charge lancée', CHARGING_STOP: 'Charge arrêtée', SET_CHARGING_CURRENT: 'Courant de charge réglé', SET_CHARGING_PHASES: 'Phases réglées',
    SET_CHARGING_SCHEDULE: 'Plan de charge réglé', SET_TEMPERATURE: 'Température réglée', SET_MODE: 'Mode réglé', SET_SCHEDULE: 'Programme réglé', POWER_BOOST: 'Relance',
  },
  commandStates: { PENDING: 'en attente', EXECUTED: 'fait', FAILED: 'échoué' },
  kinds: { battery: 'Batterie', pvInverter: 'Onduleur solaire', meter: 'Compteur', hvac: 'Chauffage / climatisation', charger: 'Borne', vehicle: 'Voiture', tariff: 'Tarif' },
  series: { pv: 'Solaire kW', home: 'Maison kW', grid: 'Réseau kW', soc: 'Batterie %', price: 'Prix par kWh' },
};

export const HOME_WORDS: Record<Lang, HomeWords> = { en, de, fr };
