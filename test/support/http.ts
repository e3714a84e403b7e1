/** A small fetch wrapper for HTTP tests: JSON in, status + parsed body + headers out. */
import { testEnv } from './env';

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** Absolute URL base; defaults to the test API's /api/v1. */
  base?: string;
}

export async function api<T = Record<string, unknown>>(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  } else if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${opts.base ?? testEnv().baseUrl}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON (e.g. an empty 204): the test reads `text`
  }
  return { status: res.status, body: parsed as T, headers: res.headers, text };
}
