/** Stored chunks as the bulk API takes them: pre-serialized JSON lines with compact vectors. */
import { EMBEDDING_DIM } from '../../../platform/ai/port';
import type { EmbeddedSentence } from './embed-chunks';

/** Enough significant digits to give back the same float32 (what a dense_vector stores) on parsing. */
const FLOAT32_DIGITS = 9;
const ZEROS = '0,'.repeat(EMBEDDING_DIM);

/**
 * A vector as JSON, each value rounded to the float32 Elasticsearch stores anyway and printed
 * with just the digits that name it: a third fewer bytes to send and parse than
 * JSON.stringify's 17 digits of a double, and a run of zeros (most of a hashed vector) is
 * copied, not printed value by value.
 */
export function vectorJson(vector: readonly number[]): string {
  let json = '[';
  let zeros = 0;
  for (const x of vector) {
    if (x === 0) {
      zeros++;
      continue;
    }
    if (zeros) json += ZEROS.slice(0, 2 * zeros);
    zeros = 0;
    json += `${Math.fround(x).toPrecision(FLOAT32_DIGITS)},`;
  }
  if (zeros) json += ZEROS.slice(0, 2 * zeros);
  return `${json.length > 1 ? json.slice(0, -1) : json}]`;
}

/** A stored chunk's JSON line with its vectors: the bulk API takes a pre-serialized line as it is. */
export const withVector = (source: object, vector: readonly number[], sentences: readonly EmbeddedSentence[] = []) =>
  `${JSON.stringify(source).slice(0, -1)},"embedding":${vectorJson(vector)},"sentences":[${sentences
    .map((s) => `{"text":${JSON.stringify(s.text)},"embedding":${vectorJson(s.vector)}}`)
    .join(',')}]}`;
