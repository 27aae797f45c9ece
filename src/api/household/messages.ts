// The household page's words, per language (the languages of the pairing pages). A missing text is
// a type error. The page's script takes them from a JSON block, so it carries no words of its own.
import type { Lang } from '../pairing/messages.ts';

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
  devices: string;
  curves: string;
  curvesEmpty: string;
  online: string;
  offline: string;
  lastUpdate: string;
  values: string;
  binding: string;
  commands: string;
  noCommands: string;
  streamLost: string;
  /** An offline device: the hub has had no value from it since then. */
  noAnswerSince: string;
  problem: string;
  kinds: Record<'battery' | 'pvInverter' | 'meter' | 'hvac' | 'charger' | 'vehicle' | 'tariff', string>;
  series: Record<'pv' | 'home' | 'grid' | 'soc' | 'price', string>;
}

const en: HomeWords = {
  title: 'Household', keyIntro: 'Enter an API key of this hub. It is kept in this browser tab only.', keyLabel: 'API key', keySubmit: 'Show',
  keyRefused: 'The hub refused this key.', signOut: 'Forget the key', readOnly: 'This key is read-only: it shows the household, but cannot send commands or delete devices.', household: 'Household', flows: 'Now', pv: 'Solar', grid: 'Grid', home: 'House',
  battery: 'Battery', car: 'Car', importing: 'importing', exporting: 'exporting', devices: 'Devices', curves: 'Last 48 hours',
  curvesEmpty: 'No points yet: a point is added every 5 minutes.', online: 'online', offline: 'offline', lastUpdate: 'Last update', values: 'Values',
  binding: 'Reached at', commands: 'Commands', noCommands: 'none', streamLost: 'Live updates interrupted; reconnecting…', noAnswerSince: 'No answer since', problem: 'Problem',
  kinds: { battery: 'Battery', pvInverter: 'PV inverter', meter: 'Meter', hvac: 'Heating / cooling', charger: 'Charger', vehicle: 'Vehicle', tariff: 'Tariff' },
  series: { pv: 'Solar kW', home: 'House kW', grid: 'Grid kW', soc: 'Battery %', price: 'Price per kWh' },
};

const de: HomeWords = {
  title: 'Haushalt', keyIntro: 'Geben Sie einen API-Schlüssel dieses Hubs ein. Er bleibt nur in diesem Browser-Tab.', keyLabel: 'API-Schlüssel', keySubmit: 'Anzeigen',
  keyRefused: 'Der Hub hat diesen Schlüssel abgelehnt.', signOut: 'Schlüssel vergessen', readOnly: 'Dieser Schlüssel ist schreibgeschützt: Er zeigt den Haushalt, kann aber keine Befehle senden und keine Geräte löschen.', household: 'Haushalt', flows: 'Jetzt', pv: 'Solar', grid: 'Netz', home: 'Haus',
  battery: 'Batterie', car: 'Auto', importing: 'Bezug', exporting: 'Einspeisung', devices: 'Geräte', curves: 'Letzte 48 Stunden',
  curvesEmpty: 'Noch keine Punkte: alle 5 Minuten kommt einer hinzu.', online: 'online', offline: 'offline', lastUpdate: 'Letzte Meldung', values: 'Werte',
  binding: 'Erreichbar unter', commands: 'Befehle', noCommands: 'keine', streamLost: 'Live-Daten unterbrochen; neue Verbindung…', noAnswerSince: 'Keine Antwort seit', problem: 'Problem',
  kinds: { battery: 'Batterie', pvInverter: 'PV-Wechselrichter', meter: 'Zähler', hvac: 'Heizung / Klima', charger: 'Ladestation', vehicle: 'Fahrzeug', tariff: 'Tarif' },
  series: { pv: 'Solar kW', home: 'Haus kW', grid: 'Netz kW', soc: 'Batterie %', price: 'Preis pro kWh' },
};

const fr: HomeWords = {
  title: 'Foyer', keyIntro: 'Saisissez une clé d’API de ce hub. Elle n’est gardée que dans cet onglet.', keyLabel: 'Clé d’API', keySubmit: 'Afficher',
  keyRefused: 'Le hub a refusé cette clé.', signOut: 'Oublier la clé', readOnly: 'Cette clé est en lecture seule : elle montre le foyer, mais ne peut ni envoyer de commandes ni supprimer d’appareils.', household: 'Foyer', flows: 'Maintenant', pv: 'Solaire', grid: 'Réseau', home: 'Maison',
  battery: 'Batterie', car: 'Voiture', importing: 'soutirage', exporting: 'injection', devices: 'Appareils', curves: 'Dernières 48 heures',
  curvesEmpty: 'Pas encore de points : un point s’ajoute toutes les 5 minutes.', online: 'en ligne', offline: 'hors ligne', lastUpdate: 'Dernière mise à jour', values: 'Valeurs',
  binding: 'Joint à', commands: 'Commandes', noCommands: 'aucune', streamLost: 'Données en direct interrompues ; reconnexion…', noAnswerSince: 'Pas de réponse depuis', problem: 'Problème',
  kinds: { battery: 'Batterie', pvInverter: 'Onduleur PV', meter: 'Compteur', hvac: 'Chauffage / climatisation', charger: 'Borne', vehicle: 'Véhicule', tariff: 'Tarif' },
  series: { pv: 'Solaire kW', home: 'Maison kW', grid: 'Réseau kW', soc: 'Batterie %', price: 'Prix par kWh' },
};

export const HOME_WORDS: Record<Lang, HomeWords> = { en, de, fr };
