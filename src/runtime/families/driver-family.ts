// What the composition root knows of a driver family (Modbus, HTTP, MQTT, OCPP), once built on the
// open store: its runtime, which it starts and stops; the executor that carries out its commands; the
// prober that pairs its chargers, when it pairs any; the metrics it reports. The daemon starts, stops
// and wires every family through this one shape, in a loop, so a new family is one more entry in the
// list of families (src/driver-families.ts) and nothing here changes.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { DeviceRecord } from '../../domain/device.ts';
import type { CommandExecutor } from '../commands/executor.ts';
import type { ChargerProber } from '../devices/pairing-prober.ts';
import type { DeviceProber } from '../devices/device-prober.ts';
import type { VehicleConnector } from '../devices/vehicle-connector.ts';
import type { HealthMonitor } from '../observability/health.ts';
import type { MetricsRegistry } from '../observability/metrics.ts';

/** The runtime that drives one family's devices: what the daemon and the API's calls (HubRuntime) ask of it. */
export interface FamilyRuntime {
  start(): void;
  stop(): Promise<void>;
  /** Whether the device's binding is one of this family's. */
  handles(device: DeviceRecord): boolean;
  /** A live read of the device now (the API's refresh). */
  refresh(device: DeviceRecord): Promise<DeviceRecord>;
  /** A deleted device: no longer driven. */
  remove(deviceId: string): void;
  /** A device added in this process (pairing): driven at once. */
  sync(): void;
  /** Why the device is offline in the driver's words, when the family keeps more than "no answer". */
  offlineReason?(deviceId: string): string | undefined;
}

export interface RunningFamily {
  /** The family's name, as in its folders (src/runtime/<name>/, drivers/<name>/). */
  readonly name: string;
  readonly runtime: FamilyRuntime;
  /** Carries out the commands of the devices the family drives. */
  readonly executor: CommandExecutor;
  /** Pairs chargers of this family, when this configuration offers it. */
  readonly prober?: ChargerProber | undefined;
  /** Connects HVAC units, home-power devices and tariffs of this family (their connect page). */
  readonly deviceProber?: DeviceProber | undefined;
  /** Connects cars through their makers' logins (the vehicle connect page); stopped with the family. */
  readonly connector?: VehicleConnector | undefined;
  /**
   * Stopped before the HTTP server closes, because its connections ride on the server (OCPP's
   * WebSockets: the server's close waits for every socket, upgraded ones too); the others stop after
   * the commands in flight have finished.
   */
  readonly stopsBeforeServer?: boolean;
  /** Takes a WebSocket upgrade on the hub's port when it is the family's; false when it is not. */
  handleUpgrade?(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Registers the family's metrics (and what it tells the health monitor); `monoNow` reads the
   * monotonic clock, the one progress is measured on. */
  watch?(metrics: MetricsRegistry, health: HealthMonitor, monoNow: () => number): void;
}
