// Addresses the hub tells devices to connect to (decisions, "Addresses shown to devices"): one a
// device on the home network can reach, never a loopback address, which on a charger means the
// charger itself. The common set-up runs the broker on the gateway (mqtt://127.0.0.1:1883): the hub
// reaches it on loopback, and a device reaches the same broker at the gateway's own address.
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** Whether a URL host (a name, an IPv4 address or a bracketed IPv6 address) is this machine's loopback. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./.test(bare);
  return false;
}

/** An address that names no single interface ("listen everywhere"): not one a device can use either. */
function isUnspecifiedHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === '0.0.0.0' || bare === '::' || bare === '';
}

/**
 * The gateway's host as devices on the home network know it: the public URL's host unless it is
 * loopback, else the listening address, else, for a wildcard listener, the machine's first IPv4
 * address on a network. Undefined when the hub knows none (it listens on loopback only).
 * `fromPublicUrl` says the host is the public URL's (whose port may be a proxy's).
 */
export function gatewayHost(publicUrl: string | undefined, listenHost: string,
  interfaces: () => ReturnType<typeof networkInterfaces> = networkInterfaces): { host: string; fromPublicUrl: boolean } | undefined {
  if (publicUrl) {
    try {
      const { hostname } = new URL(publicUrl);
      if (!isLoopbackHost(hostname) && !isUnspecifiedHost(hostname)) return { host: hostname, fromPublicUrl: true };
    } catch {
      // not a URL: the listening address
    }
  }
  if (isLoopbackHost(listenHost)) return undefined;
  if (isUnspecifiedHost(listenHost)) {
    const lan = Object.values(interfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal);
    return lan ? { host: lan.address, fromPublicUrl: false } : undefined;
  }
  return { host: isIP(listenHost) === 6 ? `[${listenHost}]` : listenHost, fromPublicUrl: false };
}

export interface BrokerAddressInputs {
  /** The broker as the hub reaches it (mqtt.url). */
  brokerUrl: string;
  /** The broker as devices reach it, when the installer said so (mqtt.deviceUrl). */
  deviceUrl?: string | undefined;
  /** How clients reach the hub (http.publicUrl), when configured. */
  publicUrl?: string | undefined;
  /** The address the hub listens on (http.host). */
  listenHost: string;
  /** The machine's network interfaces (for a wildcard listener); os.networkInterfaces by default. */
  interfaces?: () => ReturnType<typeof networkInterfaces>;
}

/**
 * The broker URL to show a device, without credentials; undefined when the hub knows no address of
 * the gateway a device could use (then nothing is shown rather than a loopback address).
 */
export function brokerUrlForDevices({ brokerUrl, deviceUrl, publicUrl, listenHost, interfaces = networkInterfaces }: BrokerAddressInputs): string | undefined {
  if (deviceUrl) return withoutCredentials(new URL(deviceUrl));
  const broker = new URL(brokerUrl);
  if (!isLoopbackHost(broker.hostname)) return withoutCredentials(broker);
  // The broker is on the gateway: the gateway's address as the home network knows it.
  const gateway = gatewayHost(publicUrl, listenHost, interfaces);
  if (!gateway) return undefined;
  broker.hostname = gateway.host;
  return withoutCredentials(broker);
}

function withoutCredentials(url: URL): string {
  url.username = '';
  url.password = '';
  // new URL('mqtt://h:1883').toString() keeps no trailing slash for non-special schemes; an explicit path is kept.
  return url.toString();
}
