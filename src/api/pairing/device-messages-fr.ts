// Les textes français de la page de connexion du chauffage/climatisation, des appareils d'énergie
// domestique et des tarifs (device-flow.ts).
import type { DeviceMessages, VendorText } from './message-types.ts';

const HOST_FR = { label: 'Adresse', help: 'L\'adresse IP ou le nom d\'hôte de l\'appareil sur votre réseau domestique, p. ex. 192.168.1.50.', invalid: 'L\'adresse est une adresse IP ou un nom d\'hôte.' };
const PORT_FR = { label: 'Port', help: 'À changer seulement si l\'appareil répond sur un autre port.', invalid: 'Le port est un nombre de 1 à 65535.' };
const TOPIC_INVALID_FR = 'Un topic contient des lettres, chiffres et signes, niveaux séparés par /, sans espace, # ni +.';
const broker = (hints: Readonly<Record<string, string>>) => (hints['broker'] ? ` (${hints['broker']})` : '');

const MODBUS_FR = (maker: string): VendorText => ({
  instructions: () => [
    `Activez Modbus TCP sur l'onduleur ${maker} (dans son interface web ou son application), puis saisissez son adresse ci-dessous.`,
    'Le hub cherche l\'onduleur, sa batterie et son compteur ; s\'il en trouve plusieurs, vous choisissez lequel ajouter.',
  ],
  fields: { host: HOST_FR, port: { ...PORT_FR, help: 'À changer seulement si le port Modbus TCP de l\'onduleur n\'est pas 502.' } },
});

export const deviceFr: DeviceMessages = {
  heading: {
    hvac: (vendor) => `Connecter votre chauffage ou climatisation ${vendor}`,
    homePower: (vendor) => `Connecter votre appareil ${vendor}`,
    tariffs: (vendor) => `Connecter votre tarif ${vendor}`,
  },
  probe: {
    UNREACHABLE: 'L\'appareil n\'a pas répondu. Est-il allumé et les informations sont-elles justes ?',
    NOT_A_CHARGER: 'Aucun appareil correspondant n\'a répondu avec ces informations. Veuillez vérifier votre saisie.',
    TIMEOUT: 'L\'appareil n\'a pas répondu à temps. Veuillez réessayer.',
    REJECTED: 'L\'appareil a refusé la connexion. Veuillez vérifier votre saisie.',
    OFFLINE: 'Le pont de l\'appareil le signale hors ligne. Vérifiez qu\'il est allumé et connecté.',
    HUB_LINK: 'Le hub n\'a pas pu écouter l\'appareil : son broker MQTT est injoignable pour le moment. Veuillez réessayer dans un instant.',
    TAKEN: 'Cet appareil est déjà connecté au compte d\'un autre utilisateur ; il ne peut pas être ajouté ici.',
    FAILED: 'L\'appareil n\'a pas pu être joint. Veuillez réessayer.',
  },
  tooMany: 'Trop de tentatives avec ce lien. Veuillez recommencer depuis votre application.',
  choose: {
    legend: 'Lequel ?',
    help: 'Le hub a trouvé plusieurs appareils à cette adresse. Choisissez celui à ajouter.',
    kinds: { pvInverter: 'Onduleur PV', battery: 'Batterie', meter: 'Compteur' },
  },
  notSupported: {
    hvac: { heading: 'Cet appareil ne peut pas être connecté', body: (vendor) => `Ce hub ne joint pas le chauffage ou la climatisation ${vendor}.` },
    homePower: { heading: 'Cet appareil ne peut pas être connecté', body: (vendor) => `Ce hub ne joint pas les appareils ${vendor}.` },
    tariffs: { heading: 'Ce tarif ne peut pas être connecté', body: (vendor) => `Ce hub ne peut pas lire les prix ${vendor}.` },
  },
};

export const deviceVendorsFr: Record<string, VendorText> = {
  'hvac:DAIKIN': {
    instructions: (hints) => [
      'Saisissez l\'adresse de l\'adaptateur Wi-Fi Daikin (BRP069, BRP084) de l\'appareil sur votre réseau domestique.',
      `Ou, pour une pompe à chaleur Altherma lue par ESPAltherma, saisissez plutôt le préfixe de topic MQTT d'ESPAltherma ; ESPAltherma doit publier sur le broker de ce hub${broker(hints)}.`,
    ],
    fields: {
      host: { ...HOST_FR, help: 'L\'adresse IP ou le nom d\'hôte de l\'adaptateur, p. ex. 192.168.1.60.' },
      port: PORT_FR,
      uuid: { label: 'UUID de l\'adaptateur (BRP072C seulement)', help: 'Seulement pour un adaptateur BRP072C : l\'UUID enregistré avec sa clé. Le hub le garde et ne l\'affiche plus jamais.', invalid: 'L\'UUID est fait de 32 chiffres hexadécimaux (tirets permis).' },
      espalthermaPrefix: { label: 'Préfixe de topic ESPAltherma', help: 'Tel que réglé dans ESPAltherma, p. ex. espaltherma.', invalid: TOPIC_INVALID_FR },
    },
  },
  'hvac:VAILLANT': {
    instructions: (hints) => [
      `Le hub lit un régulateur Vaillant (VRC700, VRC720) par ebusd, qui doit publier sur le broker de ce hub${broker(hints)} (ebusd --mqtthost).`,
      'Ne changez les champs ci-dessous que si vous les avez changés dans ebusd.',
    ],
    fields: {
      prefix: { label: 'Préfixe de topic ebusd', help: 'La première partie du --mqtttopic d\'ebusd. Par défaut : ebusd.', invalid: TOPIC_INVALID_FR },
      circuit: { label: 'Circuit du régulateur', help: 'Le circuit du régulateur dans ebusd : 700 pour un VRC700, 720 pour un VRC720. Par défaut : 700.', invalid: 'Le circuit est fait de lettres, chiffres, . _ ou -.' },
      zone: { label: 'Zone', help: 'La zone de chauffage, 1 à 3. Par défaut : 1.', invalid: 'La zone est 1, 2 ou 3.' },
    },
  },
  'hvac:VIESSMANN': {
    instructions: (hints) => [
      `Le hub lit une pompe à chaleur ou chaudière Viessmann par open3e en mode écoute, qui doit publier sur le broker de ce hub${broker(hints)}.`,
      'Ne changez les champs ci-dessous que si vous les avez changés dans open3e.',
    ],
    fields: {
      prefix: { label: 'Topic open3e', help: 'Le topic de l\'option -m d\'open3e. Par défaut : open3e.', invalid: TOPIC_INVALID_FR },
      ecu: { label: 'Adresse ECU', help: 'En hexadécimal sans 0x, p. ex. 680 pour le régulateur principal. Par défaut : 680.', invalid: 'L\'adresse ECU est de trois chiffres hexadécimaux, p. ex. 680.' },
    },
  },
  'homePower:FRONIUS': MODBUS_FR('Fronius'),
  'homePower:SMA': MODBUS_FR('SMA'),
  'homePower:HUAWEI': MODBUS_FR('Huawei SUN2000'),
  'homePower:ENPHASE': {
    instructions: () => [
      'Saisissez l\'adresse de la passerelle Enphase (IQ Gateway, Envoy) sur votre réseau domestique et votre jeton de propriétaire.',
      'Obtenez le jeton sur entrez.enphaseenergy.com avec votre compte Enlighten ; il est valable un an. Le hub le garde et ne l\'affiche plus jamais.',
    ],
    fields: {
      host: { ...HOST_FR, help: 'L\'adresse IP ou le nom d\'hôte de la passerelle, p. ex. envoy.local.' },
      port: PORT_FR,
      token: { label: 'Jeton de propriétaire', help: 'Le long jeton d\'entrez.enphaseenergy.com.', invalid: 'Le jeton est fait de trois parties séparées par des points, tel qu\'Enphase le donne.' },
    },
  },
  'homePower:TESLA': {
    instructions: () => [
      'Saisissez l\'adresse de la passerelle Powerwall sur votre réseau domestique et son identifiant client.',
      'Le mot de passe est le mot de passe client de la passerelle (par défaut les 5 derniers caractères de son numéro de série). Le hub le garde et ne l\'affiche plus jamais.',
    ],
    fields: {
      host: { ...HOST_FR, help: 'L\'adresse IP ou le nom d\'hôte de la passerelle, p. ex. 192.168.1.70.' },
      port: PORT_FR,
      email: { label: 'E-mail', help: 'L\'e-mail client réglé sur la passerelle.', invalid: 'L\'e-mail s\'écrit nom@domaine.' },
      password: { label: 'Mot de passe', help: 'Le mot de passe client de la passerelle.', invalid: 'Le mot de passe ne contient pas d\'espace.' },
    },
  },
  tariffs: {
    instructions: (hints) => [
      `Le hub lit le prix actuel de votre tarif sur le broker du foyer${broker(hints)} : evcc le publie sur evcc/site/tariffGrid, la valeur par défaut.`,
      'Tout autre topic portant le prix par kWh en nombre simple convient aussi ; saisissez alors la devise.',
    ],
    fields: {
      priceTopic: { label: 'Topic du prix', help: 'Par défaut : evcc/site/tariffGrid.', invalid: TOPIC_INVALID_FR },
      currency: { label: 'Devise', help: 'Trois majuscules, p. ex. EUR. Par défaut : celle qu\'evcc publie, sinon EUR.', invalid: 'La devise est de trois majuscules, p. ex. EUR.' },
    },
  },
};
