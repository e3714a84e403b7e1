/**
 * The agreements of an import, taken one at a time out of its ZIP (yauzl, reading the
 * central directory and inflating one entry as a stream). The entry's name only finds it:
 * what is written goes to a path the service chooses, so no name can reach outside
 * UPLOAD_DIR; names that would (absolute, `..`, backslashes) still fail their row, as would
 * surprise any other unpacker. An entry fails, not the import, when it is over the upload
 * limit, inflates more than MAX_INFLATE_RATIO to 1 or past the size its header declares (a
 * zip bomb), is encrypted, or is not a PDF or DOCX by its content.
 */
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import yauzl from 'yauzl';
import { detectFileType, MAX_INFLATE_RATIO, MIME } from '../documents/document-files';

/** Entries up to this size are not held to the ratio (tiny files compress oddly). */
const RATIO_GRACE_BYTES = 100 * 1024;

/** Why a row's file cannot be taken: the row is rejected with it. */
export class ImportFileError extends Error {}

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

export function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    // Names are decoded and checked here (yauzl's own check would fail the whole archive on one bad name).
    yauzl.open(path, { lazyEntries: true, autoClose: false, decodeStrings: false }, (err, zip) => (err ? reject(err) : resolve(zip))),
  );
}

export interface FoundEntry {
  entry: yauzl.Entry;
  name: string;
}

const nameOf = (entry: yauzl.Entry) =>
  yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileName as unknown as Buffer, entry.extraFields, false);

/** The entries named `names` (the first of each name); stops reading the directory once all are found. */
export function findEntries(zip: yauzl.ZipFile, names: ReadonlySet<string>): Promise<Map<string, FoundEntry>> {
  const found = new Map<string, FoundEntry>();
  return new Promise((resolve, reject) => {
    if (!names.size) return resolve(found);
    const onEntry = (entry: yauzl.Entry) => {
      const name = nameOf(entry);
      if (names.has(name) && !found.has(name)) found.set(name, { entry, name });
      if (found.size === names.size) return done();
      zip.readEntry();
    };
    const done = () => {
      zip.off('entry', onEntry).off('end', done).off('error', reject);
      resolve(found);
    };
    zip.on('entry', onEntry).once('end', done).once('error', reject);
    zip.readEntry();
  });
}

export interface EntryLimits {
  maxBytes: number;
}

/**
 * Why the entry fails before a byte of it is inflated (its name, kind, or the sizes its
 * headers declare), or null. An entry that passes inflates to at most its declared size:
 * yauzl stops one that goes past it.
 */
export function entryProblem({ entry, name }: FoundEntry, limits: EntryLimits): string | null {
  const unsafe = yauzl.validateFileName(name);
  if (unsafe) return `unsafe name in the ZIP (${unsafe})`;
  if (name.endsWith('/')) return 'is a folder in the ZIP';
  if (entry.generalPurposeBitFlag & 0x1) return 'is encrypted in the ZIP';
  const size = entry.uncompressedSize;
  if (size > limits.maxBytes) return `is larger than the ${megabytes(limits.maxBytes)} file limit`;
  if (size > RATIO_GRACE_BYTES && size > MAX_INFLATE_RATIO * entry.compressedSize)
    return `looks like a decompression bomb: it expands more than ${MAX_INFLATE_RATIO} times`;
  return null;
}

/** Writes the entry to `dest` (through a temporary name) and answers its type; throws ImportFileError when the entry fails. */
export async function extractEntry(zip: yauzl.ZipFile, found: FoundEntry, dest: string, limits: EntryLimits): Promise<string> {
  const problem = entryProblem(found, limits);
  if (problem) throw new ImportFileError(problem);
  const { entry } = found;
  const part = `${dest}.part`;
  try {
    const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
      zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s))),
    );
    let written = 0;
    const count = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        written += chunk.length;
        cb(written > limits.maxBytes ? new ImportFileError(`is larger than the ${megabytes(limits.maxBytes)} file limit`) : null, chunk);
      },
    });
    await pipeline(stream, count, createWriteStream(part));
  } catch (err) {
    await rm(part, { force: true });
    if (err instanceof ImportFileError) throw err;
    // yauzl's words for an entry that inflates past the size its header declares.
    if (/too many bytes/.test((err as Error).message))
      throw new ImportFileError('looks like a decompression bomb: it expands beyond the size its header declares');
    throw new ImportFileError(`cannot be read from the ZIP (${(err as Error).message})`);
  }
  const mime = await detectFileType(part);
  if (mime !== MIME.pdf && mime !== MIME.docx) {
    await rm(part, { force: true });
    throw new ImportFileError('is not a PDF or DOCX');
  }
  await rename(part, dest);
  return mime;
}
