/**
 * Text of an untrusted file, read in a child process of its own (extraction-child.ts),
 * never in the API or the worker: a parser that blows up takes only the child with it.
 * The child gets a heap ceiling (`--max-old-space-size`), a clean environment and a
 * wall-clock limit on the time the parent waits for it (time the parent spends on what it
 * was given does not count), and is killed past it. A file over a limit (what it inflates
 * to, its text, its pages, memory, time) throws ExtractionLimitError with a reason a person
 * can read; ingestion fails the document with it, without retrying.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import type { Config } from '../../platform/config';
import type { TextPiece } from '../search/chunking';
import { ExtractionLimitError, UnreadableDocumentError, type SupportedMime } from './document-files';

export interface ExtractionJob {
  path: string;
  mime: SupportedMime;
  maxExpandedBytes: number;
  maxPages: number;
  /** Pieces the child may send before the parent asks for more. */
  credits: number;
}
export type ParentMessage = { type: 'job'; job: ExtractionJob } | { type: 'more' };
export type ChildMessage =
  | { type: 'piece'; page: number; text: string }
  | { type: 'progress'; page: number; of: number }
  | { type: 'done' }
  | { type: 'error'; kind: 'limit' | 'unreadable' | 'missing' | 'other'; message: string };

export type ExtractionLimits = Pick<
  Config,
  | 'EXTRACT_MAX_EXPANDED_BYTES'
  | 'EXTRACT_MAX_TEXT_CHARS'
  | 'EXTRACT_MAX_PAGES'
  | 'EXTRACT_MEMORY_MB'
  | 'EXTRACT_TIMEOUT_MS'
  | 'EXTRACT_CONCURRENCY'
>;

const CHILD = path.join(__dirname, `extraction-child${path.extname(__filename)}`);
/**
 * Run from source (tests), the child compiles its TypeScript with tsx's CommonJS hook only:
 * tsx's ESM hook would also put pdfjs's large modules through its transformer (measured:
 * 3 s and 170 MB more per child). Compiled (`npm start`, production), it needs nothing.
 */
const LOADER = path.extname(__filename) === '.ts' ? ['--require', require.resolve('tsx/cjs')] : [];
const CREDITS = 4;

/** Children running in this process, and the callers waiting for a turn. */
let running = 0;
const waiting: Array<() => void> = [];

async function turn(limit: number): Promise<() => void> {
  if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  return () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
}

function stopped(code: number | null, signal: NodeJS.Signals | null, stderr: string, limits: ExtractionLimits): Error {
  if (/heap out of memory|Reached heap limit/i.test(stderr)) {
    return new ExtractionLimitError(`reading the file needs more than ${limits.EXTRACT_MEMORY_MB} MB of memory`);
  }
  return new Error(`the text extraction process stopped (${signal ?? `exit code ${code}`})`);
}

function childError(m: Extract<ChildMessage, { type: 'error' }>): Error {
  if (m.kind === 'limit') return new ExtractionLimitError(m.message);
  if (m.kind === 'unreadable') return new UnreadableDocumentError(m.message);
  return Object.assign(new Error(m.message), m.kind === 'missing' ? { code: 'ENOENT' } : {});
}

/** The file's text, page by page in pieces, as `extractText` gives it, read by a child process within `limits`. */
export async function* extractTextInChild(
  file: string,
  mime: SupportedMime,
  limits: ExtractionLimits,
  onPage: (page: number, of: number) => void = () => {},
): AsyncGenerator<TextPiece> {
  const release = await turn(limits.EXTRACT_CONCURRENCY);
  const execArgv = [...LOADER, `--max-old-space-size=${limits.EXTRACT_MEMORY_MB}`];
  const child = fork(CHILD, [], {
    execArgv,
    env: { NODE_ENV: process.env.NODE_ENV },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'json',
  });
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4096)));
  const inbox: ChildMessage[] = [];
  let closed: Error | undefined;
  let wake: (() => void) | undefined;
  child.on('message', (m: ChildMessage) => {
    inbox.push(m);
    wake?.();
  });
  // 'close' comes after the last message and the end of stderr, unlike 'exit'.
  child.on('close', (code, signal) => {
    closed = stopped(code, signal, stderr, limits);
    wake?.();
  });
  child.on('error', (err) => {
    closed ??= err;
    wake?.();
  });
  child.send({
    type: 'job',
    job: { path: file, mime, maxExpandedBytes: limits.EXTRACT_MAX_EXPANDED_BYTES, maxPages: limits.EXTRACT_MAX_PAGES, credits: CREDITS },
  } satisfies ParentMessage);

  let waited = 0;
  let chars = 0;
  try {
    for (;;) {
      const m = inbox.shift();
      if (!m) {
        if (closed) throw closed;
        const since = Date.now();
        const timedOut = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(true), limits.EXTRACT_TIMEOUT_MS - waited);
          wake = () => {
            clearTimeout(timer);
            resolve(false);
          };
        });
        wake = undefined;
        waited += Date.now() - since;
        if (timedOut) throw new ExtractionLimitError(`reading the file took longer than ${limits.EXTRACT_TIMEOUT_MS / 1000} seconds`);
        continue;
      }
      if (m.type === 'progress') onPage(m.page, m.of);
      else if (m.type === 'error') throw childError(m);
      else if (m.type === 'done') return;
      else {
        chars += m.text.length;
        if (chars > limits.EXTRACT_MAX_TEXT_CHARS) {
          throw new ExtractionLimitError(
            `the file holds more than ${limits.EXTRACT_MAX_TEXT_CHARS.toLocaleString('en-US')} characters of text`,
          );
        }
        if (child.connected) child.send({ type: 'more' } satisfies ParentMessage);
        yield { page: m.page, text: m.text };
      }
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    release();
  }
}
