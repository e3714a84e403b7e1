/**
 * A disk cache of the provider's embeddings for repeated evaluation runs (the model is
 * deterministic, so a vector depends only on the model, the kind and the text): a second run
 * embeds only what changed, which keeps runs light on a shared machine. Kept under
 * `.stack/eval-cache/` (ignored); `--no-cache` bypasses it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AiPort } from '../platform/ai/port';

export function cacheEmbeddings(ai: AiPort, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const embed = ai.embed.bind(ai);
  const fileOf = (text: string, kind: string) =>
    path.join(dir, `${createHash('sha256').update(`${ai.models.embedding}\u0000${kind}\u0000${text}`).digest('hex')}.json`);
  ai.embed = async (texts, kind) => {
    const cached = await Promise.all(
      texts.map((t) =>
        readFile(fileOf(t, kind), 'utf8').then(
          (s) => JSON.parse(s) as number[],
          () => null,
        ),
      ),
    );
    const missing = texts.filter((_, i) => !cached[i]);
    const fresh = missing.length ? await embed(missing, kind) : [];
    // Written aside and renamed: two requests embedding the same text never leave half a file.
    await Promise.all(
      missing.map(async (t, i) => {
        const tmp = `${fileOf(t, kind)}.${randomBytes(4).toString('hex')}`;
        await writeFile(tmp, JSON.stringify(fresh[i]));
        await rename(tmp, fileOf(t, kind));
      }),
    );
    let next = 0;
    return cached.map((v) => v ?? fresh[next++]!);
  };
}
