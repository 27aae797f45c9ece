// A Daikin Wi-Fi adapter (BRP069 family) as its `key=value` API answers. Written by hand after the
// samples in pydaikin's docs/sample_requests/brp069/ (basic_info.txt, get_control_info.txt,
// get_sensor_info.txt; GPL-3.0, so only their layout is followed, no text copied) and its
// set_control_info parameters (pydaikin/daikin_brp069.py set()). set_control_info without pow,
// mode, stemp and shum is refused with `ret=PARAM NG`, as the adapters do.
import { HttpDeviceSim, type SimAnswer, type SimRequest } from './http-sim-server.ts';

export interface DaikinSimOptions {
  name?: string;
  mac?: string;
  /** BRP072C: requests must carry this X-Daikin-uuid. */
  uuid?: string;
  roomTemperature?: number;
  outsideTemperature?: number;
}

export class DaikinSim extends HttpDeviceSim {
  /** The unit's control settings, as get_control_info names them. */
  readonly control: Record<string, string> = {
    pow: '1', mode: '3', adv: '', stemp: '22.0', shum: '0',
    dt1: '25.0', dt2: 'M', dt3: '22.0', dt4: '21.0', dt5: '25.0', dt7: '25.0',
    dh1: 'AUTO', dh2: '50', dh3: '0', dh4: '0', dh5: '0', dh7: 'AUTO', dhh: '50',
    b_mode: '3', b_stemp: '22.0', b_shum: '0', alert: '255', f_rate: 'A', f_dir: '0',
  };
  roomTemperature: number;
  outsideTemperature: number;

  constructor(private readonly options: DaikinSimOptions = {}) {
    super();
    this.roomTemperature = options.roomTemperature ?? 24.5;
    this.outsideTemperature = options.outsideTemperature ?? 31.0;
  }

  protected answer(request: SimRequest): SimAnswer | undefined {
    if (this.options.uuid !== undefined && request.headers['x-daikin-uuid'] !== this.options.uuid) return { status: 403, body: 'Forbidden', contentType: 'text/plain' };
    const text = (pairs: Record<string, string | number>) => ({ body: Object.entries(pairs).map(([k, v]) => `${k}=${v}`).join(','), contentType: 'text/plain' });
    switch (request.path) {
      case '/common/basic_info':
        return text({
          ret: 'OK', type: 'aircon', reg: 'eu', dst: 1, ver: '1_2_54', rev: '203DE8C', pow: this.control['pow']!, err: 0, location: 0,
          name: encodeName(this.options.name ?? 'Living room'), icon: 3, method: 'home only', port: 30050, id: '', pw: '', lpw_flag: 0, adp_kind: 3,
          pv: '3.20', cpv: 3, cpv_minor: 20, led: 1, en_setzone: 1, mac: this.options.mac ?? '409F38D107AC', adp_mode: 'run', en_hol: 0,
        });
      case '/aircon/get_control_info':
        return text({ ret: 'OK', ...this.control });
      case '/aircon/get_sensor_info':
        // No humidity sensor on most split units: "-".
        return text({ ret: 'OK', htemp: this.roomTemperature.toFixed(1), hhum: '-', otemp: this.outsideTemperature.toFixed(1), err: 0, cmpfreq: this.control['pow'] === '1' ? 40 : 0 });
      case '/aircon/set_control_info':
        return text(this.set(request.query));
      default:
        return undefined;
    }
  }

  private set(query: URLSearchParams): Record<string, string> {
    for (const key of ['pow', 'mode', 'stemp', 'shum']) if (!query.has(key)) return { ret: 'PARAM NG' };
    const mode = query.get('mode')!;
    const stemp = query.get('stemp')!;
    if (!['0', '1', '2', '3', '4', '6', '7'].includes(mode)) return { ret: 'PARAM NG' };
    // Cooling and heating need a setpoint in range; dry and fan keep M / --.
    if ((mode === '3' || mode === '4') && !(Number(stemp) >= 10 && Number(stemp) <= 32)) return { ret: 'PARAM NG' };
    for (const key of ['pow', 'mode', 'stemp', 'shum', 'f_rate', 'f_dir']) {
      const value = query.get(key);
      if (value !== null) this.control[key] = value;
    }
    // The unit remembers the setpoint per mode.
    if (Number.isFinite(Number(stemp))) this.control[`dt${mode}`] = Number(stemp).toFixed(1);
    return { ret: 'OK', adv: '' };
  }
}

/** The adapter percent-encodes every byte of the name (basic_info.txt: name=%4e%6f%74%74%65). */
function encodeName(name: string): string {
  return [...Buffer.from(name, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
}
