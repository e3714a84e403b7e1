/**
 * What an uploaded file may inflate to, checked before a parser sees it: a 190 KB DOCX can
 * hold 60 MB of XML, which mammoth turns into gigabytes of heap. Runs in the extraction
 * child (extraction-child.ts), never in the API or the worker.
 *
 * DOCX: the zip's entries are counted, their declared sizes and compression ratios checked
 * from the central directory, then every entry is inflated by yauzl (which fails a stream
 * that inflates past the size its header declares) with the bytes counted, so a zip whose
 * headers lie is caught too. The ratio rule is Apache POI's for OOXML: an entry past
 * 100 KB may not inflate more than 100 to 1 (real DOCX parts inflate 5 to 20 times).
 *
 * PDF: every stream that is zlib data and not an image (text extraction decodes content,
 * form and font streams, never image data) is inflated with the remaining budget as its
 * output ceiling, so the sum of what they inflate to is bounded the same way.
 */
import { readFile } from 'node:fs/promises';
import { inflateSync, constants as zlib } from 'node:zlib';
import yauzl from 'yauzl';
import { ExtractionLimitError, MAX_INFLATE_RATIO, MIME, UnreadableDocumentError, type SupportedMime } from './document-files';

export const MAX_ZIP_ENTRIES = 1000;
/** Entries up to this size are not held to the ratio (tiny parts compress oddly). */
const RATIO_GRACE_BYTES = 100 * 1024;

const megabytes = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
const overExpanded = (max: number) => new ExtractionLimitError(`the file expands to more than ${megabytes(max)} of content`);

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: true }, (err, zip) => (err ? reject(err) : resolve(zip))),
  );
}

/** Inflates one entry into nothing, counting its bytes (`count` answers an error to stop); yauzl fails it past its declared size. */
function drainEntry(zip: yauzl.ZipFile, entry: yauzl.Entry, count: (n: number) => Error | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err) return reject(err);
      stream.on('data', (b: Buffer) => {
        const over = count(b.length);
        if (!over) return;
        stream.destroy();
        reject(over);
      });
      stream.on('error', reject).on('end', resolve);
    });
  });
}

async function checkZip(path: string, maxBytes: number): Promise<void> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(path);
  } catch (err) {
    throw new UnreadableDocumentError(`not a readable DOCX (${(err as Error).message})`);
  }
  try {
    if (zip.entryCount > MAX_ZIP_ENTRIES) {
      throw new ExtractionLimitError(`the file holds ${zip.entryCount} parts, more than the ${MAX_ZIP_ENTRIES} allowed`);
    }
    let declared = 0;
    let inflated = 0;
    await new Promise<void>((resolve, reject) => {
      zip.on('error', reject).on('end', resolve);
      zip.on('entry', (entry: yauzl.Entry) => {
        const size = entry.uncompressedSize;
        declared += size;
        if (declared > maxBytes) return reject(overExpanded(maxBytes));
        if (size > RATIO_GRACE_BYTES && size > MAX_INFLATE_RATIO * entry.compressedSize) {
          const ratio = Math.round(size / Math.max(entry.compressedSize, 1));
          return reject(
            new ExtractionLimitError(
              `the file looks like a decompression bomb: its part ${entry.fileName} expands ${ratio} times, more than the ${MAX_INFLATE_RATIO} allowed`,
            ),
          );
        }
        drainEntry(zip, entry, (n) => ((inflated += n) > maxBytes ? overExpanded(maxBytes) : undefined)).then(
          () => zip.readEntry(),
          (err: Error) => {
            if (err instanceof ExtractionLimitError) return reject(err);
            // yauzl's own words for an entry that inflates past its declared size.
            if (/too many bytes/.test(err.message)) {
              return reject(new ExtractionLimitError(`the file's part ${entry.fileName} expands beyond the size its header declares`));
            }
            reject(new UnreadableDocumentError(`not a readable DOCX (${err.message})`));
          },
        );
      });
      zip.readEntry();
    });
  } catch (err) {
    if (err instanceof ExtractionLimitError || err instanceof UnreadableDocumentError) throw err;
    throw new UnreadableDocumentError(`not a readable DOCX (${(err as Error).message})`);
  } finally {
    zip.close();
  }
}

const STREAM = Buffer.from('stream');
const END_STREAM = Buffer.from('endstream');
const IMAGE = /\/Subtype\s*\/Image\b/;

async function checkPdf(path: string, maxBytes: number): Promise<void> {
  const bytes = await readFile(path);
  let left = maxBytes;
  for (let at = bytes.indexOf(STREAM); at !== -1; at = bytes.indexOf(STREAM, at + STREAM.length)) {
    if (at >= 3 && bytes.toString('latin1', at - 3, at) === 'end') continue;
    // The keyword is followed by CRLF or LF; the data runs to `endstream`.
    let start = at + STREAM.length;
    if (bytes[start] === 0x0d) start++;
    if (bytes[start] !== 0x0a) continue;
    start++;
    const end = bytes.indexOf(END_STREAM, start);
    if (end === -1) break;
    // The object's dictionary: from its `N 0 obj` (at most 8 KB back) to the keyword.
    const dictionary = bytes.toString('latin1', Math.max(0, at - 8192, bytes.lastIndexOf('obj', at)), at);
    at = end;
    if (IMAGE.test(dictionary)) continue;
    const data = bytes.subarray(start, end);
    // Only zlib data (a FlateDecode stream) starts with a valid zlib header.
    if (data.length < 2 || (data[0]! & 0x0f) !== 8 || ((data[0]! << 8) | data[1]!) % 31 !== 0) continue;
    try {
      left -= inflateSync(data, { maxOutputLength: left + 1, finishFlush: zlib.Z_SYNC_FLUSH }).length;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw overExpanded(maxBytes);
      continue; // not inflatable: the parser makes of it what it can, within its heap and time limits
    }
    if (left < 0) throw overExpanded(maxBytes);
  }
}

/** Throws ExtractionLimitError when the file inflates past `maxBytes` (or looks built to). TXT does not inflate. */
export async function checkExpansion(path: string, mime: SupportedMime, maxBytes: number): Promise<void> {
  if (mime === MIME.docx) await checkZip(path, maxBytes);
  else if (mime === MIME.pdf) await checkPdf(path, maxBytes);
}
