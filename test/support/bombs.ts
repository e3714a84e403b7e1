/**
 * Hostile files for the upload limits, built by the test itself: a real DOCX (the `docx`
 * writer) re-zipped with one entry replaced, and a one-page PDF whose content stream is
 * deflated. The zip is written by hand because a zip library will not write headers that
 * lie about sizes, which is the point of one case.
 */
import { crc32, deflateRawSync, deflateSync } from 'node:zlib';
import yauzl from 'yauzl';
import { makeDocx } from './documents';

interface ZipEntry {
  name: string;
  data: Buffer;
  /** The uncompressed size the headers declare; the real one when not given. */
  declaredSize?: number;
}

/** A zip of deflated entries (no zip64, no comment). */
export function writeZip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const packed = deflateRawSync(e.data, { level: 9 });
    const crc = crc32(e.data);
    const size = e.declaredSize ?? e.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(0x00210000, 10); // 1980-01-01 00:00
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(0x00210000, 12);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** Every entry of a zip, inflated (for well-formed test files only). */
async function readZip(bytes: Buffer): Promise<ZipEntry[]> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, z) => (err ? reject(err) : resolve(z))),
  );
  const entries: ZipEntry[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err);
        const parts: Buffer[] = [];
        stream
          .on('data', (b: Buffer) => parts.push(b))
          .on('error', reject)
          .on('end', () => {
            entries.push({ name: entry.fileName, data: Buffer.concat(parts) });
            zip.readEntry();
          });
      });
    });
    zip.on('end', () => resolve()).on('error', reject);
    zip.readEntry();
  });
  return entries;
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/** A word/document.xml of `bytes` (about) of one-letter paragraphs: the densest XML per byte mammoth reads. */
export function oneLetterParagraphs(bytes: number): Buffer {
  const paragraph = '<w:p><w:r><w:t>a</w:t></w:r></w:p>';
  return Buffer.from(
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body>${paragraph.repeat(Math.ceil(bytes / paragraph.length))}</w:body></w:document>`,
  );
}

/**
 * A real DOCX whose word/document.xml is replaced by `documentXml`, its headers declaring
 * `declaredSize` for it when given (a zip that lies about how far it inflates).
 */
export async function docxWithBody(documentXml: Buffer, declaredSize?: number): Promise<Buffer> {
  const base = await readZip(await makeDocx([{ heading: 'Bomb', paragraphs: ['placeholder'] }]));
  return writeZip(base.map((e) => (e.name === 'word/document.xml' ? { name: e.name, data: documentXml, declaredSize } : e)));
}

/** A one-page PDF (with a correct xref table) whose page content is `content`, deflated. */
export function pdfWithContent(content: Buffer): Buffer {
  const stream = deflateSync(content, { level: 9 });
  const objects = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>'),
    Buffer.concat([Buffer.from(`<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`), stream, Buffer.from('\nendstream')]),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n')];
  const offsets: number[] = [];
  let at = parts[0]!.length;
  objects.forEach((body, i) => {
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    offsets.push(at);
    parts.push(obj);
    at += obj.length;
  });
  const xref = [
    'xref',
    `0 ${objects.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `),
  ].join('\n');
  parts.push(Buffer.from(`${xref}\ntrailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`));
  return Buffer.concat(parts);
}
