import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import { OperationRouter } from '../operation.ts';
import { CommandListQuery, HvacListQuery, UserListQuery, idParams } from '../queries.ts';
import { Command, CommandList, HvacPage, oneOf, schemaRegistry } from '../../domain/schemas.ts';
import { findOr404, listCommands, listPage, submitCommand } from '../device-handlers.ts';
import { SCHEDULE_MODES, WEEK_DAYS } from '../../domain/vocabulary.ts';

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

export function hvacRoutes(deps: ApiDeps): OperationRouter {
  return new OperationRouter()
    .add({
      method: 'get', path: '/hvacs', operationId: 'listHvacs', tag: 'HVACs',
      summary: 'List all HVAC units of the subscription',
      query: HvacListQuery,
      success: { status: 200, description: 'A page of HVAC units', schema: HvacPage },
      errors: ['BAD_REQUEST'],
    }, (c, { query }) => listPage(deps, 'hvac', query))
    .add({
      method: 'get', path: '/users/{userId}/hvacs', operationId: 'listUserHvacs', tag: 'HVACs',
      summary: 'List the HVAC units of one user',
      params: idParams('userId'),
      query: UserListQuery,
      success: { status: 200, description: 'A page of HVAC units', schema: HvacPage },
      errors: ['BAD_REQUEST'],
    }, (c, { params, query }) => listPage(deps, 'hvac', query, params.userId))
    .add({
      method: 'get', path: '/users/{userId}/hvacs/{hvacId}/commands', operationId: 'listHvacCommands', tag: 'HVACs',
      summary: 'List the commands of an HVAC unit',
      description: 'By default the PENDING commands, in execution order; `state` widens the list.',
      params: idParams('userId', 'hvacId'),
      query: CommandListQuery,
      success: { status: 200, description: 'Commands in execution order', schema: CommandList },
      errors: ['BAD_REQUEST', 'HVAC_NOT_FOUND'],
    }, (c, { params, query }) => listCommands(deps, 'hvac', params.hvacId, params.userId, query.state))
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
    }, (c, { params, body }) => submitCommand(deps, findOr404(deps, 'hvac', params.hvacId), 'SET_SCHEDULE', body));
}
