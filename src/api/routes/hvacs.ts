import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import { OperationRouter } from '../operation.ts';
import { ApiError } from '../errors.ts';
import { json } from '../respond.ts';
import { CommandListQuery, HvacListQuery, UserListQuery, idParams } from '../queries.ts';
import { Command, CommandList, Hvac, HvacPage, oneOf, schemaRegistry } from '../../domain/schemas.ts';
import { findOr404, listCommands, listPage, submitCommand, submitOfferedCommand } from '../device-handlers.ts';
import { addDeviceOperations, type KindResource } from '../device-operations.ts';
import { HVAC_MODES, SCHEDULE_MODES, WEEK_DAYS, type CommandType } from '../../domain/vocabulary.ts';
import type { OperationRouter as Router } from '../operation.ts';

const ScheduleTime = z.object({
  time: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time HH:MM from 00:00 to 23:59'),
  day: oneOf(WEEK_DAYS),
});
schemaRegistry.add(ScheduleTime, { id: 'ScheduleTime' });

const ScheduleEvent = z.object({
  mode: oneOf(SCHEDULE_MODES),
  start: ScheduleTime,
  end: ScheduleTime.optional(),
  temperature: z.number().min(0).max(90).optional().describe('°C'),
});
schemaRegistry.add(ScheduleEvent, { id: 'ScheduleEvent' });

export const ScheduleRequest = z.object({
  schedules: z.array(ScheduleEvent).min(1).max(168),
});
schemaRegistry.add(ScheduleRequest, { id: 'ScheduleRequest', description: 'Times are in UTC.' });

const ScheduleResponse = z.object({
  timeZone: z.string().describe('The zone of the times: UTC, as the schedule command takes them'),
  schedules: z.array(ScheduleEvent),
});
schemaRegistry.add(ScheduleResponse, { id: 'ScheduleResponse' });

const TemperatureRequest = z.object({ temperature: z.number().min(-50).max(100).describe('°C') });
schemaRegistry.add(TemperatureRequest, { id: 'CommandTemperatureRequest' });
const ModeRequest = z.object({ mode: oneOf(HVAC_MODES) });
schemaRegistry.add(ModeRequest, { id: 'CommandModeRequest' });

const HVACS: KindResource = { kind: 'hvac', tag: 'HVACs', segment: 'hvacs', idName: 'hvacId', noun: 'Hvac', label: 'HVAC unit', schema: Hvac };

const REFUSED = 'A value outside what the unit takes, or a command its driver does not offer, is a 400 and nothing is stored.';

/** The temperature and mode commands, at the subscription level or the user's. */
function addSetpointCommands(router: Router, deps: ApiDeps, user: boolean): Router {
  const prefix = user ? '/users/{userId}/hvacs/{hvacId}' : '/hvacs/{hvacId}';
  const params = user ? idParams('userId', 'hvacId') : idParams('hvacId');
  const commands: { name: string; type: CommandType; body: z.ZodType; noun: string; summary: string }[] = [
    { name: 'temperature', type: 'SET_TEMPERATURE', body: TemperatureRequest, noun: 'Temperature', summary: 'Change the target temperature of an HVAC unit' },
    { name: 'mode', type: 'SET_MODE', body: ModeRequest, noun: 'Mode', summary: 'Change the mode of an HVAC unit' },
  ];
  for (const command of commands) {
    router.add({
      method: 'post', path: `${prefix}/commands/${command.name}`, operationId: `set${user ? 'User' : ''}Hvac${command.noun}`, tag: 'HVACs',
      summary: command.summary,
      description: `Creates an asynchronous ${command.type} command, stored before this answers, EXECUTED once the unit reads it back. ${REFUSED}`,
      params, body: command.body,
      success: { status: 200, description: 'The new command, PENDING', schema: Command },
      errors: ['BAD_REQUEST', 'HVAC_NOT_FOUND', 'UNSUPPORTED_MEDIA_TYPE'],
    }, (c, { params: p, body, reach }) => submitOfferedCommand(deps, findOr404(deps, 'hvac', p.hvacId, reach), command.type, body));
  }
  return router;
}

export function hvacRoutes(deps: ApiDeps): OperationRouter {
  const router = new OperationRouter();
  addDeviceOperations(router, deps, HVACS, ['userDetail', 'refresh', 'userRefresh', 'userDelete', 'userImage']);
  addSetpointCommands(router, deps, false);
  addSetpointCommands(router, deps, true);
  return router
    .add({
      method: 'get', path: '/users/{userId}/hvacs/{hvacId}/schedules', operationId: 'getUserHvacSchedules', tag: 'HVACs',
      summary: 'The schedule of an HVAC unit',
      description: 'The schedule last set through the hub and read back by the unit (or run by the hub for it), in UTC. '
        + 'A unit that was given none is a 404 HVAC_SCHEDULES_NOT_AVAILABLE.',
      params: idParams('userId', 'hvacId'),
      success: { status: 200, description: 'The schedule', schema: ScheduleResponse },
      errors: ['BAD_REQUEST', 'HVAC_NOT_FOUND', 'HVAC_SCHEDULES_NOT_AVAILABLE'],
    }, (c, { params, reach }) => {
      const hvac = findOr404(deps, 'hvac', params.hvacId, reach);
      const set = deps.store.commands.ofDeviceId(hvac.id, 'EXECUTED').filter((command) => command.type === 'SET_SCHEDULE').at(-1);
      if (!set) throw new ApiError('HVAC_SCHEDULES_NOT_AVAILABLE', `[HVAC] No schedule is known for HVAC ${hvac.id}`);
      return json({ timeZone: 'UTC', schedules: (set.payload as { schedules: unknown[] }).schedules });
    })
    .add({
      method: 'get', path: '/hvacs/{hvacId}/commands', operationId: 'listSubscriptionHvacCommands', tag: 'HVACs',
      summary: 'List the commands of an HVAC unit',
      description: 'By default the PENDING commands, in execution order; `state` widens the list.',
      params: idParams('hvacId'),
      query: CommandListQuery,
      success: { status: 200, description: 'Commands in execution order', schema: CommandList },
      errors: ['BAD_REQUEST', 'HVAC_NOT_FOUND'],
    }, (c, { params, query, reach }) => listCommands(deps, 'hvac', params.hvacId, reach, query.state))
    .add({
      method: 'get', path: '/hvacs', operationId: 'listHvacs', tag: 'HVACs',
      summary: 'List all HVAC units of the subscription',
      query: HvacListQuery,
      success: { status: 200, description: 'A page of HVAC units', schema: HvacPage },
      errors: ['BAD_REQUEST'],
    }, (c, { query, reach }) => listPage(deps, 'hvac', query, reach))
    .add({
      method: 'get', path: '/users/{userId}/hvacs', operationId: 'listUserHvacs', tag: 'HVACs',
      summary: 'List the HVAC units of one user',
      params: idParams('userId'),
      query: UserListQuery,
      success: { status: 200, description: 'A page of HVAC units', schema: HvacPage },
      errors: ['BAD_REQUEST'],
    }, (c, { query, reach }) => listPage(deps, 'hvac', query, reach))
    .add({
      method: 'get', path: '/users/{userId}/hvacs/{hvacId}/commands', operationId: 'listHvacCommands', tag: 'HVACs',
      summary: 'List the commands of an HVAC unit',
      description: 'By default the PENDING commands, in execution order; `state` widens the list.',
      params: idParams('userId', 'hvacId'),
      query: CommandListQuery,
      success: { status: 200, description: 'Commands in execution order', schema: CommandList },
      errors: ['BAD_REQUEST', 'HVAC_NOT_FOUND'],
    }, (c, { params, query, reach }) => listCommands(deps, 'hvac', params.hvacId, reach, query.state))
    .add({
      method: 'post', path: '/hvacs/{hvacId}/commands/schedule', operationId: 'setHvacSchedule', tag: 'HVACs',
      summary: 'Change the schedule of an HVAC unit',
      description: 'Creates an asynchronous SET_SCHEDULE command, stored before this answers. Times are in UTC. '
        + 'A unit that keeps no program of its own but takes a temperature or a mode gets the program run by the hub: '
        + 'the command is EXECUTED once the event in force is applied and read back, and each event is then applied at its '
        + 'time in the unit\'s local time; at an event\'s `end` the unit is switched OFF.',
      params: idParams('hvacId'),
      body: ScheduleRequest,
      success: { status: 200, description: 'The new command, PENDING', schema: Command },
      errors: ['BAD_REQUEST', 'HVAC_NOT_FOUND', 'UNSUPPORTED_MEDIA_TYPE'],
    }, (c, { params, body, reach }) => submitCommand(deps, findOr404(deps, 'hvac', params.hvacId, reach), 'SET_SCHEDULE', body));
}
