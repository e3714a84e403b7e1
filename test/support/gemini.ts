/**
 * A real local HTTP server speaking the Gemini REST API shape the `@google/genai` SDK
 * calls: POST /v1beta/models/<model>:generateContent, :streamGenerateContent?alt=sse and
 * :batchEmbedContents. Tests script the answer per model and method.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GeminiCall {
  model: string;
  method: string;
  body: Record<string, unknown>;
  headers: http.IncomingHttpHeaders;
}

export type GeminiAnswer =
  | { status: number; json: unknown }
  | { sse: unknown[] }
  /** Never answers: a timeout. */
  | { hang: true }
  /** An endless stream: `event` every `everyMs` until the client goes away (see `drips`). */
  | { drip: unknown; everyMs: number };

/** One endless stream as the server saw it: events written, and whether the client closed it. */
export interface Drip {
  written: number;
  closed: Promise<void>;
}

/** A generateContent response whose single candidate says `text`. */
export const textResponse = (text: string) => ({
  candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
});

export async function startFakeGemini(answer: (call: GeminiCall) => GeminiAnswer) {
  const calls: GeminiCall[] = [];
  const drips: Drip[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const m = /^\/v1beta\/models\/([^:/]+):(\w+)/.exec(req.url ?? '');
      if (req.method !== 'POST' || !m) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { code: 404, message: 'not found', status: 'NOT_FOUND' } }));
        return;
      }
      const call: GeminiCall = {
        model: m[1]!,
        method: m[2]!,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>,
        headers: req.headers,
      };
      calls.push(call);
      const a = answer(call);
      if ('hang' in a) {
        hanging.add(res);
        return;
      }
      if ('drip' in a) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const timer = setInterval(() => {
          res.write(`data: ${JSON.stringify(a.drip)}\r\n\r\n`);
          drip.written++;
        }, a.everyMs);
        const drip: Drip = { written: 0, closed: new Promise((resolve) => res.once('close', () => resolve(clearInterval(timer)))) };
        drips.push(drip);
        return;
      }
      if ('sse' in a) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const event of a.sse) res.write(`data: ${JSON.stringify(event)}\r\n\r\n`);
        res.end();
        return;
      }
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    drips,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
