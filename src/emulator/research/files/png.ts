import { crc32, deflateSync } from 'node:zlib';

type Rgb = readonly [number, number, number];

const PALETTE: readonly Rgb[] = [
  [52, 101, 164],
  [78, 154, 6],
  [204, 0, 0],
  [196, 160, 0],
  [117, 80, 123],
  [6, 152, 154],
];
const PNG_SIGNATURE = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A valid RGB PNG of a bar chart with `values` (0..1), for chart and screenshot assets. */
export function barChartPng(values: readonly number[], width = 480, height = 280, background: Rgb = [255, 255, 255]): Buffer {
  const stride = width * 3 + 1;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    pixels[y * stride] = 0; // filter type: none
    for (let x = 0; x < width; x++) setPixel(pixels, stride, x, y, background);
  }
  const margin = 24;
  const axis: Rgb = [60, 60, 60];
  for (let x = margin; x < width - margin; x++) setPixel(pixels, stride, x, height - margin, axis);
  for (let y = margin; y <= height - margin; y++) setPixel(pixels, stride, margin, y, axis);
  const slot = (width - 2 * margin) / Math.max(1, values.length);
  values.forEach((value, index) => {
    const barHeight = Math.round(Math.min(1, Math.max(0, value)) * (height - 2 * margin - 4));
    const left = Math.round(margin + index * slot + slot * 0.2);
    const right = Math.round(margin + (index + 1) * slot - slot * 0.2);
    const colour = PALETTE[index % PALETTE.length]!;
    for (let y = height - margin - barHeight; y < height - margin; y++) {
      for (let x = left; x < right; x++) setPixel(pixels, stride, x, y, colour);
    }
  });
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit depth, truecolour, deflate, adaptive filters, no interlace
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(pixels)), chunk('IEND', Buffer.alloc(0))]);
}

function setPixel(pixels: Buffer, stride: number, x: number, y: number, [r, g, b]: Rgb): void {
  const offset = y * stride + 1 + x * 3;
  pixels[offset] = r;
  pixels[offset + 1] = g;
  pixels[offset + 2] = b;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length, 0);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed), 0);
  return Buffer.concat([length, typed, crc]);
}
