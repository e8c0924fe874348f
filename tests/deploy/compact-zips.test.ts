// serverless/compact-zips.cjs deflates each function's zip again at the best level. Here, on a zip
// written as archiver streams one (deflated at the fastest level, sizes and CRC in a data descriptor
// after each file): the same files, names, modes, dates and CRCs, in fewer bytes, read back whole.
import { createRequire } from 'node:module';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readZip } from '../../scripts/bench/zip.js';

const { compactZip } = createRequire(import.meta.url)('../../serverless/compact-zips.cjs') as { compactZip: (zip: Buffer) => Buffer };

const CRC_TABLE = Array.from({ length: 256 }, (_, byte) => {
  let value = byte;
  for (let bit = 0; bit < 8; bit++) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
  return value >>> 0;
});
const crc32 = (data: Buffer) => (data.reduce((crc, byte) => CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8), 0xffffffff) ^ 0xffffffff) >>> 0;

/** A zip as a streaming writer makes it: local headers without sizes (flag bit 3), each file's data descriptor after it. */
function streamedZip(files: { name: string; data: Buffer; mode: number }[]): Buffer {
  const parts: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data, mode } of files) {
    const deflated = deflateRawSync(data, { level: 1 });
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x08, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(0x0021, 12); // 1980-01-01
    local.writeUInt16LE(nameBytes.length, 26);
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc32(data), 4);
    descriptor.writeUInt32LE(deflated.length, 8);
    descriptor.writeUInt32LE(data.length, 12);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0314, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x08, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(0x0021, 14);
    central.writeUInt32LE(crc32(data), 16);
    central.writeUInt32LE(deflated.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    parts.push(local, nameBytes, deflated, descriptor);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + deflated.length + descriptor.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directory, end]);
}

describe('compactZip', () => {
  const bundle = Buffer.from(
    Array.from(
      { length: 4000 },
      (_, line) => `export const value${line} = JSON.parse('{"line":${line % 97},"text":"a bundle line"}');`,
    ).join('\n'),
  );
  const files = [
    { name: 'functions/verify-otp.mjs', data: bundle, mode: 0o100644 },
    { name: 'bin/tool', data: Buffer.from('#!/bin/sh\necho hello\n'), mode: 0o100755 },
  ];

  it('holds the same files in fewer bytes, each with its size and CRC in its local header and no data descriptor', () => {
    const streamed = streamedZip(files);
    const compact = compactZip(streamed);
    expect(compact.length).toBeLessThan(streamed.length);
    expect(readZip(compact).map((entry) => [entry.name, entry.data()])).toEqual(files.map(({ name, data }) => [name, data]));
    // The first local header: no flag bit 3, CRC and sizes filled in, the deflated data right after the name.
    expect(compact.readUInt16LE(6) & 0x08).toBe(0);
    expect(compact.readUInt32LE(14)).toBe(crc32(bundle));
    expect(compact.readUInt32LE(22)).toBe(bundle.length);
    expect(readZip(compact)[0]!.compressedSize).toBe(compact.readUInt32LE(18));
  });

  it('keeps each file’s mode and date, and changes nothing more when run again', () => {
    const compact = compactZip(streamedZip(files));
    const end = compact.length - 22;
    let at = compact.readUInt32LE(end + 16);
    for (const { mode, name } of files) {
      expect(compact.readUInt32LE(at + 38) >>> 16, name).toBe(mode);
      expect(compact.readUInt16LE(at + 14), name).toBe(0x0021);
      at += 46 + compact.readUInt16LE(at + 28);
    }
    expect(compactZip(compact)).toEqual(compact);
  });
});
