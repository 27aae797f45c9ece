// A Daikin Wi-Fi adapter with the JSON API (BRP084, firmware 2.8): POST /dsiot/multireq with a batch
// of reads (op 2) and writes (op 3) of "edge" resources, values as hex text in {pn, pv, pch} trees.
// Written by hand after the layout of pydaikin's docs/sample_requests/brp084/*.json and the paths
// of pydaikin/daikin_brp084.py (GPL-3.0: layout followed, no text copied). A read answers rsc
// 2000, a write 2004; an unknown resource 4004.
import { HttpDeviceSim, json, type SimAnswer, type SimRequest } from './http-sim-server.ts';

interface Node { pn: string; pv?: string | number | number[]; pch?: Node[] }
interface EdgeRequest { op: number; to: string; pc?: Node }

export class DaikinBrp084Sim extends HttpDeviceSim {
  /** Indoor unit values by node path (e_1002/…): what the adapter reports and takes. */
  readonly indoor: Record<string, string> = {
    'e_A002/p_01': '01', // on
    'e_3001/p_01': '0200', // cool
    'e_3001/p_02': '2C', // cooling setpoint 22 °C
    'e_3001/p_03': '2A', // heating setpoint 21 °C
    'e_3001/p_09': '0A00', // fan auto
    'e_A00B/p_01': '19', // room 25 °C
    'e_A00B/p_02': '37', // humidity 55 %
  };
  /** Outdoor unit: e_1003/e_A00D/p_01, little-endian signed, °C × 2 ("F6FF" is −5 °C). */
  outside = 'F6FF';

  protected answer(request: SimRequest): SimAnswer | undefined {
    if (request.path !== '/dsiot/multireq' || request.method !== 'POST') return undefined;
    let batch: { requests?: EdgeRequest[] };
    try {
      batch = JSON.parse(request.body) as { requests?: EdgeRequest[] };
    } catch {
      return { status: 400, body: '' };
    }
    return json({ responses: (batch.requests ?? []).map((r) => (r.op === 3 ? this.write(r) : this.read(r.to.split('?')[0]!))) });
  }

  private read(to: string): Record<string, unknown> {
    const leaves = (prefix: string, values: Record<string, string>) => {
      const groups = new Map<string, Node[]>();
      for (const [path, pv] of Object.entries(values)) {
        const [group, leaf] = path.split('/') as [string, string];
        if (!groups.has(group)) groups.set(group, []);
        groups.get(group)!.push({ pn: leaf, pv });
      }
      return { pn: prefix, pch: [...groups].map(([pn, pch]) => ({ pn, pch })) };
    };
    switch (to) {
      case '/dsiot/edge/adr_0100.dgc_status':
        return { fr: to, pc: { pn: 'dgc_status', pch: [leaves('e_1002', this.indoor)] }, rsc: 2000 };
      case '/dsiot/edge/adr_0200.dgc_status':
        return { fr: to, pc: { pn: 'dgc_status', pch: [leaves('e_1003', { 'e_A00D/p_01': this.outside })] }, rsc: 2000 };
      case '/dsiot/edge.adp_i':
        return { fr: to, pc: { pn: 'adp_i', pch: [{ pn: 'mac', pv: 'A4B1C2D3E4F5' }, { pn: 'ver', pv: '2_8_0' }, { pn: 'api_ver', pv: '2_2' }] }, rsc: 2000 };
      default:
        return { fr: to, rsc: 4004 };
    }
  }

  /** Takes every leaf of e_1002 written, as the adapter does; refuses other resources. */
  private write(request: EdgeRequest): Record<string, unknown> {
    const unit = request.pc?.pch?.find((n) => n.pn === 'e_1002');
    if (request.to !== '/dsiot/edge/adr_0100.dgc_status' || !unit) return { fr: request.to, rsc: 4004 };
    for (const group of unit.pch ?? []) {
      for (const leaf of group.pch ?? []) {
        const key = `${group.pn}/${leaf.pn}`;
        if (!(key in this.indoor) && !/^e_3001\/p_(02|03|1D)$/.test(key)) return { fr: request.to, rsc: 4003 };
        this.indoor[key] = String(leaf.pv);
      }
    }
    return { fr: request.to, rsc: 2004 };
  }
}
