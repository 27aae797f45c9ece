// Vendor logos, served by the hub itself so that a gateway without internet still shows them.
// Each is a plain wordmark drawn from the catalog's display name: no trademark artwork is shipped.
import { VENDOR_NAMES, logoFileName } from '../domain/vendors.ts';

const PALETTE = ['#0b7285', '#5f3dc4', '#2b8a3e', '#c92a2a', '#e67700', '#1864ab', '#862e9c', '#364fc7'];

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

const LOGOS = new Map<string, string>(
  Object.entries(VENDOR_NAMES).map(([code, name], index) => {
    const width = Math.max(120, name.length * 14 + 32);
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="48" viewBox="0 0 ${width} 48" role="img" aria-label="${escapeXml(name)}">` +
      `<rect width="${width}" height="48" rx="8" fill="${PALETTE[index % PALETTE.length]}"/>` +
      `<text x="${width / 2}" y="31" font-family="Helvetica,Arial,sans-serif" font-size="20" font-weight="700" fill="#fff" text-anchor="middle">${escapeXml(name)}</text></svg>`;
    return [logoFileName(code), svg];
  }),
);

export function logoSvg(fileName: string): string | undefined {
  return LOGOS.get(fileName);
}
