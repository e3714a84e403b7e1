/**
 * A local sentence-embedding model run with ONNX Runtime: a BERT encoder exported by
 * scripts/model/bert-to-onnx.py (mean pooling and L2 normalization are inside the graph)
 * and its WordPiece tokenizer, both read from one folder that scripts/stack.sh provisions.
 * Nothing is fetched at run time: without the folder's files there is no encoder.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Tokenizer as TokenizerModule } from '@huggingface/tokenizers';
import type { InferenceSession } from 'onnxruntime-node';

/** What is used of the tokenizer. (The package's declarations use extensionless ESM paths, which do not resolve under NodeNext.) */
interface WordPieceTokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): { ids: number[] };
  token_to_id(token: string): number | undefined;
}
const Tokenizer = TokenizerModule as unknown as new (tokenizerJson: object, tokenizerConfig: object) => WordPieceTokenizer;

export interface SentenceEncoder {
  /** The model's name, recorded on every chunk it embeds. */
  readonly name: string;
  readonly dimension: number;
  /** Unit vectors of `dimension` values, one per text, in order. */
  encode(texts: readonly string[]): Promise<Float32Array[]>;
}

export interface EncoderOptions {
  /** Intra-op threads of the ONNX session: the machine's cores are shared with the engines. */
  threads: number;
  /** Texts per forward pass; each pass is padded to its longest text. */
  batchSize?: number;
}

const FILES = ['model.onnx', 'tokenizer.json', 'tokenizer_config.json', 'config.json'] as const;

/** The encoder of the model in `dir`, or null when the folder lacks its files. */
export function openSentenceEncoder(dir: string, options: EncoderOptions): SentenceEncoder | null {
  if (!FILES.every((f) => existsSync(path.join(dir, f)))) return null;
  return new OnnxSentenceEncoder(dir, options);
}

interface ModelConfig {
  hidden_size: number;
  max_position_embeddings: number;
}

class OnnxSentenceEncoder implements SentenceEncoder {
  readonly name: string;
  readonly dimension: number;
  private readonly tokenizer: WordPieceTokenizer;
  private readonly maxTokens: number;
  private readonly cls: number;
  private readonly sep: number;
  private session: Promise<InferenceSession> | undefined;
  /** One forward pass at a time per process: batches queue instead of multiplying peak memory. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly dir: string,
    private readonly options: EncoderOptions,
  ) {
    this.name = path.basename(path.resolve(dir));
    const read = (f: string): unknown => JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
    const config = read('config.json') as ModelConfig;
    this.dimension = config.hidden_size;
    this.tokenizer = new Tokenizer(read('tokenizer.json') as object, read('tokenizer_config.json') as object);
    // sentence-transformers truncates to max_seq_length (256 for this model), which the
    // published similarities were computed with; the position table allows more.
    const st = path.join(dir, 'sentence_bert_config.json');
    const maxSeq = existsSync(st) ? (read('sentence_bert_config.json') as { max_seq_length?: number }).max_seq_length : undefined;
    this.maxTokens = Math.min(maxSeq ?? config.max_position_embeddings, config.max_position_embeddings);
    this.cls = this.tokenId('[CLS]');
    this.sep = this.tokenId('[SEP]');
  }

  private tokenId(token: string): number {
    const id = this.tokenizer.token_to_id(token);
    if (id === undefined) throw new Error(`${this.name}: the tokenizer has no ${token} token`);
    return id;
  }

  private open(): Promise<InferenceSession> {
    this.session ??= import('onnxruntime-node').then(({ InferenceSession }) =>
      InferenceSession.create(path.join(this.dir, 'model.onnx'), {
        intraOpNumThreads: this.options.threads,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
      }),
    );
    return this.session;
  }

  /** [CLS] + the text's first word pieces + [SEP], at most `maxTokens`. */
  private tokens(text: string): number[] {
    const ids = this.tokenizer.encode(text, { add_special_tokens: false }).ids;
    return [this.cls, ...ids.slice(0, this.maxTokens - 2), this.sep];
  }

  encode(texts: readonly string[]): Promise<Float32Array[]> {
    const run = this.queue.then(() => this.encodeNow(texts));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async encodeNow(texts: readonly string[]): Promise<Float32Array[]> {
    const session = await this.open();
    const { Tensor } = await import('onnxruntime-node');
    const tokenized = texts.map((t, i) => ({ i, ids: this.tokens(t) }));
    // Similar lengths share a batch, so little of a pass is padding.
    tokenized.sort((a, b) => a.ids.length - b.ids.length);
    const out = new Array<Float32Array>(texts.length);
    const batchSize = this.options.batchSize ?? 8;
    for (let b = 0; b < tokenized.length; b += batchSize) {
      const batch = tokenized.slice(b, b + batchSize);
      const width = batch.at(-1)!.ids.length;
      const ids = new BigInt64Array(batch.length * width);
      const mask = new BigInt64Array(batch.length * width);
      batch.forEach(({ ids: row }, r) => {
        for (let j = 0; j < row.length; j++) {
          ids[r * width + j] = BigInt(row[j]!);
          mask[r * width + j] = 1n;
        }
      });
      const result = await session.run({
        input_ids: new Tensor('int64', ids, [batch.length, width]),
        attention_mask: new Tensor('int64', mask, [batch.length, width]),
      });
      const data = result.sentence_embedding!.data as Float32Array;
      batch.forEach(({ i }, r) => (out[i] = data.slice(r * this.dimension, (r + 1) * this.dimension)));
    }
    return out;
  }
}
