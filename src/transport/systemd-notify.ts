// The sd_notify protocol: datagrams like "READY=1" to the socket systemd names in NOTIFY_SOCKET.
// Node has no Unix datagram sockets of its own, hence the small native unix-dgram module.
import unixDgram, { type UnixDgramSocket } from 'unix-dgram';

export interface Notifier {
  notify(message: string): Promise<void>;
  close(): void;
}

export class SystemdNotifier implements Notifier {
  private socket: UnixDgramSocket | undefined;

  private constructor(private readonly path: string) {}

  /** A notifier when running under systemd with Type=notify, otherwise null. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): SystemdNotifier | null {
    const path = env['NOTIFY_SOCKET'];
    if (!path) return null;
    // "@name" is an abstract socket: its address starts with a NUL byte.
    return new SystemdNotifier(path.startsWith('@') ? `\0${path.slice(1)}` : path);
  }

  notify(message: string): Promise<void> {
    this.socket ??= unixDgram.createSocket('unix_dgram');
    const data = Buffer.from(message);
    return new Promise((resolve, reject) => {
      this.socket!.send(data, 0, data.length, this.path, (err) => (err ? reject(err) : resolve()));
    });
  }

  close(): void {
    this.socket?.close();
    this.socket = undefined;
  }
}

/** The watchdog period systemd asked for (WATCHDOG_USEC), in ms, if it is meant for this process. */
export function watchdogIntervalMs(env: NodeJS.ProcessEnv = process.env, pid = process.pid): number | null {
  const usec = Number(env['WATCHDOG_USEC']);
  if (!Number.isFinite(usec) || usec <= 0) return null;
  if (env['WATCHDOG_PID'] && Number(env['WATCHDOG_PID']) !== pid) return null;
  return usec / 1000;
}
