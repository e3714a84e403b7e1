/**
 * The shared machinery of the vendor fakes: a real local HTTP server, every request kept,
 * Bearer-token checks, and one scripted 429 with Retry-After on the nth write call.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface FakeAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface FakeVendor {
  url: string;
  requests: FakeRequest[];
  /** The request answered with the scripted 429, once it happened. */
  limited(): FakeRequest | null;
  /**
   * Answers the `n`th write call (1-based, counted by `isWrite`) with 429 and this Retry-After,
   * or with the vendor's own limit signal (`status`, no Retry-After when null).
   */
  rateLimitOnce(n: number, retryAfterSeconds: number | null, status?: number): void;
  close(): Promise<void>;
}

export async function startFake(opts: {
  token: string;
  /** The vendor's error body for a status and message. */
  error: (status: number, message: string) => unknown;
  isWrite: (r: FakeRequest) => boolean;
  handle: (r: FakeRequest) => FakeAnswer;
  /** Requests authorized by other means than the Bearer token (presigned storage URLs). */
  presigned?: (r: FakeRequest) => boolean;
}): Promise<FakeVendor> {
  const requests: FakeRequest[] = [];
  let writes = 0;
  let limitAt: { n: number; seconds: number | null; status: number } | null = null;
  let limited: FakeRequest | null = null;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const r: FakeRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(r);
      let answer: FakeAnswer;
      if (!opts.presigned?.(r) && req.headers.authorization !== `Bearer ${opts.token}`)
        answer = { status: 401, body: opts.error(401, 'invalid or missing Bearer token') };
      else if (opts.isWrite(r) && ++writes === limitAt?.n) {
        limited = r;
        const { seconds, status } = limitAt;
        answer = {
          status,
          body: opts.error(status, 'rate limit exceeded'),
          headers: seconds === null ? {} : { 'retry-after': String(seconds) },
        };
      } else {
        try {
          answer = opts.handle(r);
        } catch (err) {
          answer = { status: 400, body: opts.error(400, (err as Error).message) };
        }
      }
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    limited: () => limited,
    rateLimitOnce(n, seconds, status = 429) {
      limitAt = { n: writes + n, seconds, status };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A request check: throws the vendor-facing message when it fails. */
export function check(ok: unknown, message: string): asserts ok {
  if (!ok) throw new Error(message);
}

export function jsonBody(r: FakeRequest): unknown {
  check(String(r.headers['content-type']).startsWith('application/json'), 'Content-Type must be application/json');
  try {
    return JSON.parse(r.body) as unknown;
  } catch {
    throw new Error('body is not valid JSON');
  }
}
