// Simulated devices for the Modbus bench, run in their own process so that the hub's CPU figure is
// the hub's alone. Prints one JSON line {"ports":[...]} and serves until stdin closes.
import { ModbusSimServer } from '../src/sim/modbus-sim-server.ts';
import { SiteModel } from '../src/sim/site-model.ts';
import { sunspecBattery, sunspecInverter, sunspecMeter } from '../src/sim/sunspec-sims.ts';

const count = Number(process.argv[2] ?? 100);
const site = new SiteModel({ dayLengthMs: 10 * 60_000, startHour: 10 });
const servers: ModbusSimServer[] = [];
for (let i = 0; i < count; i++) {
  const unit = i % 10 < 4 ? sunspecInverter(site) : i % 10 < 7 ? sunspecBattery(site) : sunspecMeter(site);
  servers.push(await ModbusSimServer.tcp(new Map([[1, unit]])));
}
process.stdout.write(`${JSON.stringify({ ports: servers.map((s) => s.port) })}\n`);
process.stdin.resume();
process.stdin.on('end', async () => {
  await Promise.all(servers.map((s) => s.close()));
  process.exit(0);
});
