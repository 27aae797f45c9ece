// One event of a weekly HVAC schedule as the API takes it (POST /hvacs/{id}/commands/schedule):
// times in UTC. Device encoders (src/runtime/commands/schedules.ts) and the programs the hub runs
// itself (src/store/hub-schedules.ts, src/runtime/commands/hub-program.ts) share it.
import type { WEEK_DAYS } from './vocabulary.ts';

export type WeekDay = (typeof WEEK_DAYS)[number];

export interface ScheduleEvent {
  mode: string;
  start: { time: string; day: WeekDay };
  end?: { time: string; day: WeekDay };
  temperature?: number;
}
