import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import {
  appendAudit,
  brokenAuditLink,
  certificateValid,
  issueCertificate,
  loadSigningKey,
  sha256,
} from '../../../services/signatures/signature-evidence';
import type { AuditEntry } from '../../../models/signature';

const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();

function trail(): AuditEntry[] {
  const t: AuditEntry[] = [];
  t.push(appendAudit(t, { type: 'requested', at: at(0), name: 'Ann Owner', email: 'ann@example.com' }));
  t.push(appendAudit(t, { type: 'viewed', at: at(1), signer_id: 's1', ip: '203.0.113.9', user_agent: 'UA' }));
  t.push(appendAudit(t, { type: 'signed', at: at(2), signer_id: 's1', name: 'Bob Signer', email: 'bob@example.com' }));
  return t;
}

describe('signature evidence', () => {
  it('chains audit entries so any edit, removal or reordering is found', () => {
    const t = trail();
    expect(brokenAuditLink(t)).to.equal(-1);
    expect(brokenAuditLink(t.map((e, i) => (i === 1 ? { ...e, ip: '198.51.100.1' } : e)))).to.equal(1);
    expect(brokenAuditLink([t[0]!, t[2]!])).to.equal(1);
    expect(brokenAuditLink([t[1]!, t[0]!, t[2]!])).to.equal(0);
  });

  it('treats stored nulls like absent fields', () => {
    const t = trail();
    const stored = t.map((e) => ({ ...e, detail: null, ip: e.ip ?? null }));
    expect(brokenAuditLink(stored)).to.equal(-1);
  });

  it('issues a certificate that verifies with the public key, in Node and with openssl', () => {
    const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const key = loadSigningKey(pem);
    const t = trail();
    const cert = issueCertificate(key, {
      version: 1,
      signature_id: 'sig1',
      contract_id: 'c1',
      document_hash: sha256('contract text'),
      signers: [{ name: 'Bob Signer', email: 'bob@example.com', signed_at: at(2) }],
      audit_head: t[2]!.hash,
      issued_at: at(3),
    });
    expect(certificateValid(key.publicKey, cert)).to.equal(true);
    expect(certificateValid(key.publicKey, { ...cert, payload: cert.payload.replace('Bob', 'Rob') })).to.equal(false);
    expect(certificateValid(loadSigningKey('').publicKey, cert)).to.equal(false);

    // The README's offline check: openssl with the served public key.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cert-'));
    writeFileSync(path.join(dir, 'public.pem'), key.publicKeyPem);
    writeFileSync(path.join(dir, 'payload.json'), cert.payload);
    writeFileSync(path.join(dir, 'signature.bin'), Buffer.from(cert.signature, 'base64'));
    const out = execFileSync(
      'openssl',
      ['pkeyutl', '-verify', '-pubin', '-inkey', 'public.pem', '-rawin', '-in', 'payload.json', '-sigfile', 'signature.bin'],
      { cwd: dir },
    ).toString();
    expect(out).to.match(/Signature Verified Successfully/);
  });
});
