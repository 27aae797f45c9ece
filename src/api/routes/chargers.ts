import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import { OperationRouter } from '../operation.ts';
import { CommandListQuery, idParams } from '../queries.ts';
import { Charger, ChargerPage, Command, CommandList, schemaRegistry } from '../../domain/schemas.ts';
import { findOr404, listCommands, submitOfferedCommand } from '../device-handlers.ts';
import { addDeviceOperations, type KindResource } from '../device-operations.ts';
import type { CommandType } from '../../domain/vocabulary.ts';

const CHARGERS: KindResource = {
  kind: 'charger', tag: 'Chargers', segment: 'chargers', idName: 'chargerId', noun: 'Charger', label: 'charger', schema: Charger, page: ChargerPage,
};

const ChargingCurrentRequest = z.object({ amps: z.int().min(0).max(500).describe('A, the most the charger may offer') });
schemaRegistry.add(ChargingCurrentRequest, { id: 'ChargingCurrentRequest' });
const ChargingPhasesRequest = z.object({ phases: z.int().min(1).max(3).describe('The number of phases to charge on') });
schemaRegistry.add(ChargingPhasesRequest, { id: 'ChargingPhasesRequest' });

interface ChargerCommand {
  name: string;
  type: CommandType;
  noun: string;
  summary: string;
  body?: z.ZodType;
  /** The command's payload for the workers (which name the current `current`), from the body. */
  payload?: (body: Record<string, number>) => Record<string, number>;
}

const COMMANDS: readonly ChargerCommand[] = [
  { name: 'charging-start', type: 'CHARGING_START', noun: 'StartCharging', summary: 'Start charging at a charger' },
  { name: 'charging-stop', type: 'CHARGING_STOP', noun: 'StopCharging', summary: 'Stop charging at a charger' },
  {
    name: 'charging-current', type: 'SET_CHARGING_CURRENT', noun: 'ChargingCurrent', summary: 'Set the most current a charger offers',
    body: ChargingCurrentRequest, payload: (body) => ({ current: body['amps']! }),
  },
  {
    name: 'charging-phases', type: 'SET_CHARGING_PHASES', noun: 'ChargingPhases', summary: 'Set the number of phases a charger charges on',
    body: ChargingPhasesRequest, payload: (body) => ({ phases: body['phases']! }),
  },
];

/** The commands of a charger, at the subscription level (only charging-phases is documented there) or the user's. */
function addChargerCommands(router: OperationRouter, deps: ApiDeps, user: boolean): OperationRouter {
  for (const command of COMMANDS) {
    if (!user && command.type !== 'SET_CHARGING_PHASES') continue;
    const prefix = user ? '/users/{userId}/chargers/{chargerId}' : '/chargers/{chargerId}';
    router.add({
      method: 'post', path: `${prefix}/commands/${command.name}`, operationId: `${user ? 'user' : 'charger'}${command.noun}`, tag: 'Chargers',
      summary: command.summary,
      description: `Creates an asynchronous ${command.type} command, stored before this answers, EXECUTED once the charger shows it. `
        + `${command.body ? '' : 'No request body. '}A command the charger's driver does not offer, or a value outside what it takes, is a 400 and nothing is stored.`,
      params: user ? idParams('userId', 'chargerId') : idParams('chargerId'),
      ...(command.body ? { body: command.body } : {}),
      success: { status: 200, description: 'The new command, PENDING', schema: Command },
      errors: command.body ? ['BAD_REQUEST', 'CHARGER_NOT_FOUND', 'UNSUPPORTED_MEDIA_TYPE'] : ['BAD_REQUEST', 'CHARGER_NOT_FOUND'],
    }, (c, { params, body, reach }) => {
      const charger = findOr404(deps, 'charger', params.chargerId, reach);
      const payload = command.payload?.(body as Record<string, number>);
      return submitOfferedCommand(deps, charger, command.type, payload, { current: 'amps' });
    });
  }
  return router;
}

export function chargerRoutes(deps: ApiDeps): OperationRouter {
  const router = addDeviceOperations(new OperationRouter(), deps, CHARGERS, ['detail', 'refresh', 'delete', 'userList', 'userDetail', 'userRefresh', 'userDelete']);
  addChargerCommands(router, deps, false);
  addChargerCommands(router, deps, true);
  return router.add({
    method: 'get', path: '/users/{userId}/chargers/{chargerId}/commands', operationId: 'listChargerCommands', tag: 'Chargers',
    summary: 'List the commands of a charger',
    description: 'By default the PENDING commands, in execution order; `state` widens the list. A hub addition: the origin documents command lists for vehicles and HVAC units only.',
    hubAddition: true,
    params: idParams('userId', 'chargerId'),
    query: CommandListQuery,
    success: { status: 200, description: 'Commands in execution order', schema: CommandList },
    errors: ['BAD_REQUEST', 'CHARGER_NOT_FOUND'],
  }, (c, { params, query, reach }) => listCommands(deps, 'charger', params.chargerId, reach, query.state));
}
