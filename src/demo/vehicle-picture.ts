// Draws a side view of a car as a real PNG, in a given body colour: the demo vehicles' images.
import { encodePng } from '../domain/png.ts';

type Rgb = readonly [number, number, number];

export function drawCar(body: Rgb, width = 320, height = 160): Buffer {
  const px = new Uint8Array(width * height * 4);
  const set = (x: number, y: number, [r, g, b]: Rgb) => {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    const i = (y * width + x) * 4;
    px[i] = r; px[i + 1] = g; px[i + 2] = b; px[i + 3] = 255;
  };
  const sx = width / 320;
  const sy = height / 160;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const u = x / sx;
      const v = y / sy;
      // Lower body: a rounded slab; cabin: a trapezoid on top; windows inside the cabin.
      const inBody = v >= 70 && v <= 120 && u >= 20 && u <= 300 && !((u < 30 || u > 290) && (v < 78 || v > 112));
      const cabinLeft = 95 - (v - 30) * 0.9;
      const cabinRight = 225 + (v - 30) * 0.6;
      const inCabin = v >= 30 && v < 70 && u >= cabinLeft && u <= cabinRight;
      const inWindow = v >= 38 && v < 66 && u >= cabinLeft + 10 && u <= cabinRight - 10 && Math.abs(u - 160) > 4;
      if (inWindow) set(x, y, [170, 205, 230]);
      else if (inCabin || inBody) set(x, y, body);
      if (v >= 92 && v <= 98 && u >= 288 && u <= 300) set(x, y, [255, 214, 102]); // head light
      for (const cx of [80, 240]) {
        const d = Math.hypot(u - cx, v - 120);
        if (d <= 26) set(x, y, d <= 12 ? [190, 190, 190] : [34, 34, 34]);
      }
      if (v > 146 && v < 150 && u > 10 && u < 310) set(x, y, [200, 200, 200]); // road
    }
  }
  return encodePng(width, height, px);
}
