// A real MQTT broker for a test: mosquitto on a free loopback port when the binary is there (MQTT 5,
// TLS), otherwise aedes embedded in the test process (MQTT 3.1.1 only). Never the machine's own.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { TestCertificates } from './tls.ts';
import { hasPeer } from './peers.ts';

export interface TestBroker {
  kind: 'mosquitto' | 'aedes';
  port: number;
  url: string;
  supportsMqtt5: boolean;
  stop(): Promise<void>;
  /** Stops and starts again on the same port (a broker restart). */
  restart(): Promise<void>;
  /** mosquitto's log lines so far (clients connecting, sessions taken over); aedes has none. */
  readonly logLines?: readonly string[];
  /** mosquitto's: emits 'line' with each new log line. */
  readonly log?: EventEmitter;
}

export interface BrokerOptions {
  tls?: TestCertificates;
  requireClientCertificate?: boolean;
  /** Only these users (name → password) may connect (mosquitto's password_file). */
  users?: Record<string, string>;
  /** A port chosen beforehand (a broker that comes up after its clients). */
  port?: number;
  /** aedes even where mosquitto is installed (the demo's embedded broker, MQTT 3.1.1 only). */
  engine?: 'aedes';
}

export const hasMosquitto = hasPeer('mosquitto');

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

export async function startBroker(options: BrokerOptions = {}): Promise<TestBroker> {
  const port = options.port ?? (await freePort());
  return hasMosquitto && options.engine !== 'aedes' ? startMosquitto(port, options) : startAedes(port, options);
}

async function startMosquitto(port: number, options: BrokerOptions): Promise<TestBroker> {
  const dir = mkdtempSync(join(tmpdir(), 'hub-mosquitto-'));
  // set_tcp_nodelay: mosquitto leaves Nagle on by default, which holds a small command behind the
  // delayed ACK of the previous packet (about 40 ms); the README recommends it for real brokers too.
  const lines = [`listener ${port} 127.0.0.1`, 'allow_anonymous true', 'persistence false', 'set_tcp_nodelay true', 'log_dest stderr', 'log_type all'];
  // As root, mosquitto drops to its own user before reading certificates unless told otherwise.
  if (process.getuid?.() === 0) lines.push('user root');
  if (options.tls) {
    lines.push(`cafile ${options.tls.caFile}`, `certfile ${options.tls.serverCertFile}`, `keyfile ${options.tls.serverKeyFile}`);
    if (options.requireClientCertificate) lines.push('require_certificate true');
  }
  if (options.users) {
    const passwords = join(dir, 'passwords');
    writeFileSync(passwords, '');
    for (const [user, password] of Object.entries(options.users)) {
      const made = spawnSync('mosquitto_passwd', ['-b', passwords, user, password], { stdio: 'pipe' });
      if (made.status !== 0) throw new Error(`mosquitto_passwd failed: ${made.stderr.toString()}`);
    }
    lines[1] = 'allow_anonymous false';
    lines.push(`password_file ${passwords}`);
  }
  const configFile = join(dir, 'mosquitto.conf');
  writeFileSync(configFile, `${lines.join('\n')}\n`);
  let child: ChildProcess | undefined;
  const logLines: string[] = [];
  const log = new EventEmitter();
  const logLine = (line: string) => {
    logLines.push(line);
    log.emit('line', line);
  };

  const start = async () => {
    const proc = spawn('mosquitto', ['-c', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`mosquitto did not start: ${output}`)), 10_000);
      const onLine = (line: string) => {
        output += `${line}\n`;
        logLine(line);
        // "running" comes once every listener is open; "Opening … listen socket" comes before the
        // bind, and a client connecting then was refused (ECONNREFUSED) on a loaded machine.
        if (/ running$/.test(line)) {
          clearTimeout(timer);
          resolve();
        }
      };
      createInterface({ input: proc.stdout! }).on('line', onLine);
      createInterface({ input: proc.stderr! }).on('line', onLine);
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`mosquitto exited (${code}): ${output}`));
      });
    });
  };
  const stopProc = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = once(proc, 'exit');
    proc.kill('SIGTERM');
    await exited;
  };
  await start();
  const scheme = options.tls ? 'mqtts' : 'mqtt';
  return {
    kind: 'mosquitto',
    port,
    url: `${scheme}://${options.tls ? 'localhost' : '127.0.0.1'}:${port}`,
    supportsMqtt5: true,
    logLines,
    log,
    stop: async () => {
      await stopProc();
      rmSync(dir, { recursive: true, force: true });
    },
    restart: async () => {
      await stopProc();
      await start();
    },
  };
}

async function startAedes(port: number, options: BrokerOptions): Promise<TestBroker> {
  if (options.tls || options.users) throw new Error('TLS and password tests need mosquitto (apt-get install mosquitto)');
  const { Aedes } = await import('aedes');
  let broker: InstanceType<typeof Aedes> | undefined;
  let server: Server | undefined;
  const start = async () => {
    broker = await Aedes.createBroker();
    const b = broker;
    server = createServer((socket) => b.handle(socket));
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
  };
  const stopBroker = async () => {
    const [s, b] = [server, broker];
    server = undefined;
    broker = undefined;
    if (s) await new Promise<void>((resolve) => { s.close(() => resolve()); b?.close(); });
  };
  await start();
  return { kind: 'aedes', port, url: `mqtt://127.0.0.1:${port}`, supportsMqtt5: false, stop: stopBroker, restart: async () => { await stopBroker(); await start(); } };
}
