// The maker clouds the hub reads vehicles from.
import type { CloudDefinition } from '../../src/runtime/cloud/definition.ts';
import bmwCardata from './bmw-cardata.ts';
import volvo from './volvo.ts';

export function builtInCloudDrivers(): CloudDefinition[] {
  return [bmwCardata, volvo];
}
