/**
 * An import's records file, read a row at a time from disk (never whole): CSV with a header
 * row, or JSON Lines. Each row comes with its line number and either its fields or why it
 * cannot be read; one bad row never stops the rest.
 *
 * Rows are first cut at record boundaries here (a newline outside double quotes, as RFC 4180
 * has it), then each CSV record is parsed on its own by csv-parse. csv-parse alone recovers
 * badly from a malformed record (after an invalid closing quote it lost the next rows without
 * a word), so its errors are confined to their record. A quote that never closes would swallow
 * the rest of the file: past MAX_RECORD_BYTES, or at the end of the file, that record's first
 * line is rejected and reading resumes on the line after it.
 */
import { createReadStream } from 'node:fs';
import { parse as parseCsv } from 'csv-parse/sync';
import type { ImportFormat } from '../../models/import';

/** A row's bytes at most: the contract content limit (500,000 characters) with room to spare. */
export const MAX_RECORD_BYTES = 2 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;

/** Where reading starts: a record boundary (the file's start, or a batch's first row). */
export interface Position {
  line: number;
  offset: number;
}

export interface RawRecord extends Position {
  bytes?: Buffer;
  error?: string;
}

/** Cuts a byte stream into records with their first line and byte offset. */
class RecordSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private inQuotes = false;
  private skipping = false;
  /** Newlines since the current record began. */
  private newlines = 0;
  private consumed: number;
  private start: Position;

  constructor(
    private readonly quotes: boolean,
    from: Position,
    private readonly maxBytes = MAX_RECORD_BYTES,
  ) {
    this.start = { ...from };
    this.consumed = from.offset;
  }

  *push(chunk: Buffer, base = this.consumed): Generator<RawRecord> {
    if (base === this.consumed) this.consumed += chunk.length;
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (b === QUOTE && this.quotes && !this.skipping) this.inQuotes = !this.inQuotes;
      else if (b === LF) {
        this.newlines++;
        if (this.inQuotes) continue;
        const record = this.skipping ? undefined : this.take(chunk.subarray(from, i));
        this.skipping = false;
        if (record) yield record;
        from = i + 1;
        this.start = { line: this.start.line + this.newlines, offset: base + i + 1 };
        this.newlines = 0;
      }
    }
    if (!this.skipping && from < chunk.length) {
      this.parts.push(chunk.subarray(from));
      this.size += chunk.length - from;
    }
    if (this.size > this.maxBytes) yield* this.giveUp(`is longer than ${this.maxBytes} bytes`);
  }

  *end(): Generator<RawRecord> {
    if (this.inQuotes && this.size) yield* this.giveUp('has a quoted field that is never closed');
    if (this.inQuotes && this.size) yield* this.end();
    else if (!this.skipping) {
      const record = this.take(Buffer.alloc(0));
      if (record) yield record;
    }
  }

  /** Rejects the current record's first line and reads on from the line after it (or skips to the next line). */
  private *giveUp(reason: string): Generator<RawRecord> {
    const held = Buffer.concat(this.parts);
    const at = { ...this.start };
    yield { ...at, error: `the row ${reason}` };
    this.parts = [];
    this.size = 0;
    this.newlines = 0;
    this.inQuotes = false;
    const firstBreak = held.indexOf(LF);
    if (firstBreak === -1) {
      this.skipping = true;
      this.start = { line: at.line, offset: at.offset + held.length };
      return;
    }
    this.start = { line: at.line + 1, offset: at.offset + firstBreak + 1 };
    yield* this.push(held.subarray(firstBreak + 1), this.start.offset);
  }

  private take(last: Buffer): RawRecord | undefined {
    let bytes = this.parts.length ? Buffer.concat([...this.parts, last]) : last;
    this.parts = [];
    this.size = 0;
    if (bytes.at(-1) === CR) bytes = bytes.subarray(0, -1);
    // Blank lines separate nothing: they are not rows.
    if (bytes.every((b) => b === 0x20 || b === 0x09 || b === CR)) return undefined;
    return { ...this.start, bytes };
  }
}

/** The records of a file from `from` on, streamed. */
export async function* readRecords(path: string, format: ImportFormat, from: Position = { line: 1, offset: 0 }): AsyncGenerator<RawRecord> {
  const splitter = new RecordSplitter(format === 'csv', from);
  const stream = createReadStream(path, { start: from.offset, highWaterMark: 256 * 1024 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) yield* splitter.push(chunk);
    yield* splitter.end();
  } finally {
    stream.destroy();
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function decode(bytes: Buffer): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** One CSV record's cells, or why it is malformed. */
export function csvCells(text: string): string[] | string {
  try {
    const records: string[][] = parseCsv(text, { relax_column_count: true });
    if (records.length !== 1) return 'malformed CSV: more than one record on the row';
    return records[0]!;
  } catch (err) {
    return `malformed CSV: ${(err as Error).message.replace(/ at line \d+/, '')}`;
  }
}

export interface Row {
  line: number;
  /** The row's fields as written (CSV cells are text; empty cells are left out). */
  fields?: Record<string, unknown>;
  error?: string;
}

/** A raw record as fields, given the CSV header's columns. */
export function toRow(record: RawRecord, format: ImportFormat, columns: readonly string[] = []): Row {
  const { line } = record;
  if (record.error) return { line, error: record.error };
  const text = decode(record.bytes!);
  if (text === null) return { line, error: 'the row is not valid UTF-8' };
  if (format === 'jsonl') {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return { line, error: `not valid JSON (${(err as Error).message})` };
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) return { line, error: 'not a JSON object' };
    return { line, fields: value as Record<string, unknown> };
  }
  const cells = csvCells(text);
  if (typeof cells === 'string') return { line, error: cells };
  if (cells.length > columns.length)
    return { line, error: `unknown column: the row has ${cells.length} fields, the header names ${columns.length}` };
  if (cells.length < columns.length)
    return { line, error: `malformed CSV: the row has ${cells.length} fields, the header names ${columns.length}` };
  return { line, fields: Object.fromEntries(columns.flatMap((c, i) => (cells[i] === '' ? [] : [[c, cells[i]]]))) };
}

/** `count` rows of the file from `from` (a batch). */
export async function* readRows(
  path: string,
  format: ImportFormat,
  columns: readonly string[],
  from: Position,
  count: number,
): AsyncGenerator<Row> {
  if (count <= 0) return;
  let n = 0;
  for await (const record of readRecords(path, format, from)) {
    yield toRow(record, format, columns);
    if (++n >= count) return;
  }
}
