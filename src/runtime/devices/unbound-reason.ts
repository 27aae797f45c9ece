// Why a device that no driver family drives is offline (decisions §5: imported devices no driver
// reaches are shown offline), in words a household understands: it has no binding at all, or it is a
// car reached only through the charger it charges at.
import { CHARGER_BINDING, type DeviceRecord } from '../../domain/device.ts';

/**
 * Makers whose cloud refuses the bridges the hub's vehicle drivers go through (README, "Makers'
 * clouds decide what a cloud bridge can reach").
 */
const BLOCKED_CLOUDS: Readonly<Record<string, string>> = {
  VW: 'Volkswagen\'s cloud blocks third-party bridges for VW cars since 27 May 2026',
};

export function unboundReason(device: DeviceRecord): string | undefined {
  if (device.driver === null) return 'no driver reaches it: it has no binding, so the hub shows only the values it was imported with';
  if (device.driver.type !== CHARGER_BINDING) return undefined;
  const blocked = BLOCKED_CLOUDS[device.vendor];
  return `no driver reads the car itself${blocked ? ` (${blocked})` : ''}; it is reached through the charger it charges at, which starts and stops its charging`;
}
