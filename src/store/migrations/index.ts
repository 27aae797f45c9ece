// Append-only: never edit a migration that has shipped; add the next number instead.
import m001 from './001-initial.ts';
import m002 from './002-command-attempts.ts';
import m003 from './003-normal-forms.ts';
import m004 from './004-ocpp.ts';
import m005 from './005-hub-schedules.ts';
import m006 from './006-tariff-ledger.ts';
import m007 from './007-command-waiting.ts';
import m008 from './008-household-series.ts';
import m009 from './009-connect-session-vin.ts';
import m010 from './010-key-scope.ts';
import m011 from './011-meter-hour-clock-step.ts';
import m012 from './012-device-images.ts';
import m013 from './013-connect-session-kind.ts';
import m014 from './014-household-car.ts';

export const MIGRATIONS: readonly string[] = [m001, m002, m003, m004, m005, m006, m007, m008, m009, m010, m011, m012, m013, m014];
