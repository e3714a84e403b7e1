/**
 * The child process that reads one untrusted file (forked by extract-text-in-child.ts with
 * a heap ceiling and a clean environment): checks what it inflates to, then sends its text
 * pieces over IPC, one per credit the parent grants, so it never runs far ahead of what
 * the parent has taken. It knows no secret and opens no connection.
 */
import { checkExpansion } from './check-expansion';
import { ExtractionLimitError, UnreadableDocumentError } from './document-files';
import { extractText } from './extraction';
import type { ChildMessage, ExtractionJob, ParentMessage } from './extract-text-in-child';

const send = (message: ChildMessage) => new Promise<void>((resolve) => process.send!(message, () => resolve()));

function kindOf(err: unknown): Extract<ChildMessage, { type: 'error' }>['kind'] {
  if (err instanceof ExtractionLimitError) return 'limit';
  if (err instanceof UnreadableDocumentError) return 'unreadable';
  return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'other';
}

async function run(job: ExtractionJob): Promise<void> {
  let credits = job.credits;
  let granted: (() => void) | undefined;
  process.on('message', (m: ParentMessage) => {
    if (m.type !== 'more') return;
    credits++;
    granted?.();
  });
  try {
    await checkExpansion(job.path, job.mime, job.maxExpandedBytes);
    const progress = (page: number, of: number) => void send({ type: 'progress', page, of });
    for await (const piece of extractText(job.path, job.mime, progress, job.maxPages)) {
      while (credits === 0) await new Promise<void>((resolve) => (granted = resolve));
      credits--;
      await send({ type: 'piece', page: piece.page, text: piece.text });
    }
    await send({ type: 'done' });
  } catch (err) {
    await send({ type: 'error', kind: kindOf(err), message: (err as Error).message });
  }
  // pdfjs and mammoth may leave handles open; the work is done and sent.
  process.exit(0);
}

// The parent enforces the time limit: if it is gone (a worker killed mid-ingestion), stop.
process.once('disconnect', () => process.exit(0));
process.once('message', (m: ParentMessage) => {
  if (m.type === 'job') void run(m.job);
});
