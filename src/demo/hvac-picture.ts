// Draws the outdoor unit of a heat pump as a real PNG: the demo heat pump's image.
import { encodePng } from '../domain/png.ts';

type Rgb = readonly [number, number, number];

export function drawHeatPump(casing: Rgb, width = 320, height = 240): Buffer {
  const px = new Uint8Array(width * height * 4);
  const sx = width / 320;
  const sy = height / 240;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const u = x / sx;
      const v = y / sy;
      let colour: Rgb | undefined;
      if (u >= 30 && u <= 290 && v >= 30 && v <= 200) colour = casing; // the casing
      const fan = Math.hypot(u - 130, v - 115);
      if (fan <= 70) colour = fan <= 12 ? [90, 90, 90] : Math.round(fan) % 10 < 2 ? [200, 200, 200] : [45, 50, 55]; // fan grille
      if (u >= 225 && u <= 270 && v >= 60 && v <= 170 && Math.round(v) % 12 < 3) colour = [150, 150, 150]; // side vents
      if ((u >= 50 && u <= 70 || u >= 250 && u <= 270) && v > 200 && v <= 215) colour = [70, 70, 70]; // feet
      if (!colour) continue;
      const i = (y * width + x) * 4;
      px[i] = colour[0]; px[i + 1] = colour[1]; px[i + 2] = colour[2]; px[i + 3] = 255;
    }
  }
  return encodePng(width, height, px);
}
