import type { Messages } from './message-types.ts';
import { deviceFr, deviceVendorsFr } from './device-messages-fr.ts';

const OCPP_FIELDS_FR = {
  chargePointId: {
    label: 'Identifiant de point de charge',
    help: 'L’identifiant que vous donnez à la borne dans le portail du fabricant ; son numéro de série convient. 1 à 48 lettres, chiffres ou . _ ~ -',
    invalid: 'L’identifiant compte 1 à 48 lettres, chiffres ou . _ ~ -',
  },
  password: {
    label: 'Mot de passe',
    help: 'Généré par ce hub pour cette borne : saisissez-le dans le portail du fabricant. Il ne sera plus affiché.',
    invalid: 'Le mot de passe compte 16 à 40 caractères sans espace.',
  },
};

const BMW_CLIENT_ID_FR = {
  label: 'Identifiant client CarData',
  help: 'Affiché dans la section CarData du portail après sa création.',
  invalid: 'L’identifiant client est celui qu’affiche le portail, p. ex. 1a2b3c4d-….',
};

/** BMW CarData, identique pour BMW et MINI ; seul le nom du portail change. */
const BMW_STEPS_FR = (portal: string) => [
  `BMW CarData permet au hub de lire votre voiture (voitures immatriculées dans l’UE). Dans le portail web ${portal}, ouvrez la section CarData, créez un identifiant client CarData, `
    + 'demandez-y l’accès à l’API CarData, attendez une minute, puis demandez l’accès au flux (stream) CarData.',
  'Dans la configuration du flux de données, cochez le niveau de charge, l’autonomie, l’état de charge, la prise, la puissance de charge et le kilométrage (la documentation du hub donne les clés). N’y authentifiez aucun appareil : le hub s’en charge.',
  'Saisissez ensuite l’identifiant client ci-dessous et connectez-vous.',
];

export const fr: Messages = {
  hubName: 'Hub énergie domestique',
  heading: (vendor) => `Connecter votre borne ${vendor}`,
  optional: '(facultatif)',
  submit: 'Connecter',
  cancel: 'Annuler',
  problemsHeading: 'Veuillez corriger les points suivants :',
  required: (label) => `Veuillez saisir « ${label} ».`,
  tooLong: (label, max) => `« ${label} » ne doit pas dépasser ${max} caractères.`,
  invalid: (label) => `« ${label} » n’est pas valide.`,
  probe: {
    UNREACHABLE: 'La borne n’a pas répondu. Est-elle allumée, son API MQTT est-elle activée et utilise-t-elle le broker de ce hub ?',
    NOT_A_CHARGER: 'Aucune borne correspondante n’a répondu avec ces informations. Veuillez vérifier votre saisie.',
    TIMEOUT: 'La borne n’a pas répondu à temps. Veuillez réessayer.',
    REJECTED: 'La borne a refusé la connexion. Veuillez vérifier votre saisie.',
    OFFLINE: 'La connexion MQTT de la borne la signale hors ligne. Vérifiez qu’elle est allumée et reliée au réseau.',
    HUB_LINK: 'Le hub n’a pas pu écouter la borne : son broker MQTT est injoignable pour le moment. Veuillez réessayer dans un instant.',
    TAKEN: 'Cette borne est déjà reliée au compte d’un autre utilisateur ; elle ne peut pas être ajoutée ici.',
    FAILED: 'Impossible de joindre la borne. Veuillez réessayer.',
  },
  notSupported: {
    heading: 'Cette borne ne peut pas être connectée',
    body: (vendor) => `Ce hub ne sait pas connecter les bornes ${vendor}.`,
    back: 'Retour à l’application',
  },
  unknown: {
    heading: 'Lien inconnu',
    body: 'Ce hub ne connaît pas ce lien de connexion. Veuillez relancer la connexion depuis votre application.',
  },
  used: {
    heading: 'Lien déjà utilisé',
    body: 'Ce lien de connexion a déjà été utilisé. Pour connecter une autre borne ou une autre voiture, recommencez depuis votre application.',
  },
  expired: {
    heading: 'Lien expiré',
    body: 'Ce lien de connexion a expiré. Veuillez relancer la connexion depuis votre application.',
    back: 'Retour à l’application',
  },
  badRequest: { heading: 'Formulaire incompris', body: 'Le formulaire n’a pas pu être lu. Veuillez recharger la page et réessayer.' },
  tooLarge: { heading: 'Trop de données', body: 'Le formulaire a envoyé plus de données que le hub n’en accepte. Veuillez recharger la page et réessayer.' },
  failure: { heading: 'Une erreur est survenue', body: 'Le hub n’a pas pu terminer cette étape. Veuillez réessayer dans un instant.' },
  vehicle: {
    heading: (vendor) => `Connecter votre ${vendor}`,
    login: (vendor) => `Se connecter avec ${vendor}`,
    failed: {
      REFUSED: 'Le constructeur a refusé ces informations. Vérifiez votre saisie telle que le portail du constructeur l’affiche.',
      DECLINED: 'La connexion a été refusée ou n’a pas été terminée. Veuillez réessayer.',
      EXPIRED: 'Le code a expiré avant d’être saisi. Connectez-vous à nouveau pour obtenir un nouveau code.',
      UNREACHABLE: 'Le service du constructeur n’a pas répondu. Veuillez réessayer dans un instant.',
      NO_CAR: 'Aucune voiture que ce hub sait lire n’a été trouvée sur ce compte (ou pas celle que votre application a demandée).',
      QUOTA: 'Le quota d’appels du constructeur pour aujourd’hui est épuisé. Veuillez réessayer demain.',
      TAKEN: 'Cette voiture est déjà connectée au compte d’un autre utilisateur ; elle ne peut pas être ajoutée ici.',
    },
    code: {
      heading: (vendor) => `Confirmer la connexion chez ${vendor}`,
      steps: (vendor) => [
        `Ouvrez la page de connexion de ${vendor} avec le bouton ci-dessous (sur cet appareil ou un autre), connectez-vous avec votre compte ${vendor} et saisissez ce code :`,
      ],
      codeLabel: 'Votre code',
      open: (vendor) => `Ouvrir la page de ${vendor}`,
      waiting: 'Cette page avance d’elle-même dès que vous avez confirmé le code.',
      checkNow: 'Vérifier maintenant',
    },
    otherBrowser: {
      heading: 'Recommencez dans ce navigateur',
      body: 'Cette page ne peut continuer que dans le navigateur qui a commencé la connexion chez le constructeur. Veuillez relancer la connexion depuis votre application, dans le navigateur que vous utilisez maintenant, et vous connecter depuis celui-ci.',
    },
    redirect: {
      heading: (vendor) => `Vers ${vendor}`,
      body: (vendor) => `Vous êtes redirigé vers la page de connexion de ${vendor}. Une fois connecté, ${vendor} vous renvoie ici.`,
      continue: (vendor) => `Continuer vers ${vendor}`,
    },
    choose: {
      heading: 'Ajouter votre voiture',
      body: (vendor) => `Vous êtes connecté chez ${vendor}. Le hub y lit le niveau de charge, l’autonomie et l’état de la prise de la voiture.`,
      car: 'Voiture',
      charger: 'Se recharge à',
      chargerHelp: 'Le constructeur ne permet pas au hub de démarrer ou d’arrêter la charge ; le hub le fait à cette borne.',
      noCharger: 'Choisir plus tard',
      add: 'Ajouter la voiture',
      renew: 'Cette voiture est déjà sur ce hub : l’ajouter à nouveau renouvelle sa connexion.',
    },
    notSupported: {
      heading: 'Cette voiture ne peut pas être connectée',
      body: (vendor) => `Ce hub ne peut pas connecter les voitures ${vendor}.`,
    },
  },
  device: deviceFr,
  vendors: {
    ...deviceVendorsFr,
    BMW: {
      instructions: () => BMW_STEPS_FR('MyBMW'),
      fields: { clientId: BMW_CLIENT_ID_FR },
    },
    MINI: {
      instructions: () => BMW_STEPS_FR('MyMINI'),
      fields: { clientId: BMW_CLIENT_ID_FR },
    },
    VOLVO: {
      instructions: (hints) => [
        'Volvo permet au hub de lire votre voiture par son API officielle. Inscrivez-vous une fois sur developer.volvocars.com avec l’adresse e-mail de votre Volvo ID '
          + 'et créez une application API : elle a une clé VCC API, un identifiant client et un secret client.',
        `Dans l’application, choisissez les scopes openid, conve:vehicle_relation, conve:odometer_status et energy:state:read, saisissez ${hints['callbackUrl'] ?? 'l’adresse de retour de ce hub'} `
          + 'comme URI de redirection, puis publiez l’application.',
        'Saisissez ensuite ci-dessous la clé, l’identifiant et le secret, et connectez-vous avec votre Volvo ID.',
      ],
      fields: {
        vccApiKey: { label: 'Clé VCC API', help: 'La clé API de l’application (primaire ou secondaire), sur developer.volvocars.com.', invalid: 'La clé VCC API se compose de lettres et de chiffres.' },
        clientId: { label: 'Identifiant client', help: 'L’identifiant client OAuth de l’application.', invalid: 'L’identifiant client n’est pas valide.' },
        clientSecret: { label: 'Secret client', help: 'Le secret client OAuth de l’application. Le hub le conserve et ne l’affiche plus jamais.', invalid: 'Le secret client n’est pas valide.' },
      },
    },
    ZAPTEC: {
      instructions: (hints) => [
        'Dans le Zaptec Portal, la borne doit faire partie d’une installation de type « Operator », et votre groupe d’utilisateurs doit avoir « Allow OCPP 1.6J ». '
          + 'Ouvrez Paramètres → Authentification de l’installation et choisissez « Authentification OCPP 1.6J » (pas la variante cloud), sans le comportement OCPP hérité.',
        `Comme URL du système central, saisissez ${hints['ocppUrl'] ?? 'l’adresse OCPP de ce hub'}/ suivi de l’identifiant de point de charge ci-dessous, par ex. ${hints['ocppUrl'] ?? ''}/ZAP000123. `
          + 'Comme mot de passe, saisissez le mot de passe ci-dessous. Enregistrez pendant que la borne est en ligne et ne charge pas.',
        'Quand la borne s’est connectée à ce hub, cliquez sur Connecter.',
      ],
      fields: OCPP_FIELDS_FR,
    },
    EASEE: {
      instructions: (hints) => [
        'Les bornes Easee (micrologiciel 328 ou plus récent) passent une fois en OCPP par l’API de mise en service OCPP d’Easee (https://api.easee.com/local-ocpp, connecté avec votre compte Easee ; Easee doit être l’opérateur du site).',
        `Enregistrez la connexion : POST /v1/connection-details/{numéro de série} avec connectivityMode « DualProtocol », websocketConnectionArgs.url « ${hints['ocppUrl'] ?? ''} » `
          + 'et l’identifiant et le mot de passe ci-dessous comme chargePointId et basicAuthPassword. Puis appliquez-la à la borne avec la même API.',
        'Quand la borne s’est connectée à ce hub, cliquez sur Connecter.',
      ],
      fields: OCPP_FIELDS_FR,
    },
    GO_E: {
      instructions: (hints) => [
        'Dans l’application go-e, ouvrez les paramètres Internet de la borne, activez l’API MQTT et indiquez le broker de ce hub comme broker MQTT'
          + (hints['broker'] ? ` : ${hints['broker']}.` : '.'),
        'Saisissez ensuite ci-dessous le numéro de série de la borne.',
      ],
      fields: {
        serial: {
          label: 'Numéro de série',
          help: 'Indiqué dans l’application go-e et sur la plaque signalétique : 6 à 12 chiffres.',
          invalid: 'Le numéro de série comporte 6 à 12 chiffres.',
        },
        topicPrefix: {
          label: 'Préfixe de topic MQTT',
          help: 'À modifier seulement si vous l’avez changé dans l’application go-e. Par défaut : go-eCharger.',
          invalid: 'Le préfixe de topic peut contenir des lettres, des chiffres, - et _, les niveaux séparés par /.',
        },
      },
    },
  },
};
