/** Helpers for tests of signature requests: wait for the sealed PDF and download it as a member does. */
import { api } from './http';
import { testEnv } from './env';
import type { TestUser } from './auth';

export interface SignatureBody {
  id: string;
  status: string;
  document_hash: string;
  sealed_at: string | null;
  pdf_sha256: string | null;
  sealing_error: string | null;
  signers: Array<{ id: string; status: string; viewed_at: string | null; signing_url: string }>;
}

/** The request once its PDF is sealed; throws on a sealing error or after 150 s. */
export async function waitSealed(u: TestUser, id: string): Promise<SignatureBody> {
  // Sealing takes about a second; a loaded machine (and a first certificate) takes longer.
  const deadline = Date.now() + 150000;
  for (;;) {
    const res = await api<SignatureBody>('GET', `/signatures/${id}`, { token: u.token });
    if (res.body.sealed_at) return res.body;
    if (res.body.sealing_error || Date.now() > deadline) throw new Error(`not sealed: ${res.text}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** `GET /signatures/:id/document.pdf` as `u`: the sealed PDF's bytes. */
export async function sealedPdf(u: TestUser, id: string): Promise<Buffer> {
  const res = await fetch(`${testEnv().baseUrl}/signatures/${id}/document.pdf`, { headers: { authorization: `Bearer ${u.token}` } });
  if (res.status !== 200) throw new Error(`sealed PDF: ${res.status} ${await res.text()}`);
  return Buffer.from(await res.arrayBuffer());
}

/** The token at the end of a signing link. */
export const tokenOf = (signingUrl: string) => signingUrl.split('/').pop()!;
