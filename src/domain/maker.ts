// A device's maker as it names itself (SunSpec Mn, a register-map string) against the vendor codes
// of the catalog: which code it is, and how the model shows a maker that has none.
import { HOME_POWER_VENDORS } from './vocabulary.ts';

/** The model as shown: prefixed with the device's own maker when that maker is not the vendor code. */
export function ownMakerModel(manufacturer: string | undefined, model: string | undefined, vendor: string): string | undefined {
  const maker = manufacturer?.trim();
  if (!maker || vendorOf(maker) === vendor) return model;
  if (!model) return maker;
  return model.toUpperCase().startsWith(maker.toUpperCase()) ? model : `${maker} ${model}`;
}

export function vendorOf(manufacturer: string | undefined): string | undefined {
  if (!manufacturer) return undefined;
  return HOME_POWER_VENDORS.find((code) => manufacturer.toUpperCase().includes(code));
}
