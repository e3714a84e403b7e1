/**
 * Generating the service's own keys when none is configured: an RSA-3072 key with its
 * self-signed sealing certificate (as PKCS#12), and the Ed25519 key of signature certificates.
 * Key generation and node-forge's certificate and PKCS#12 work take the CPU for a while, so
 * they run in an offload thread (platform/offload.ts), and only when the store holds no key
 * (./service-keys.ts).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';
import { offloadTask } from '../../platform/offload';

/** A self-signed sealing certificate, valid 10 years, and its key, as a PKCS#12 (base64) under `passphrase`. */
export function generateSealP12({ passphrase }: { passphrase: string }): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 3072 });
  const key = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 10 * 365 * 24 * 3600 * 1000);
  const name = [
    { name: 'commonName', value: 'Contract lifecycle service document seal' },
    { name: 'organizationName', value: 'Contract lifecycle service' },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(key, forge.md.sha256.create());
  const asn1 = forge.pkcs12.toPkcs12Asn1(key, [cert], passphrase, { algorithm: 'aes256' });
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary').toString('base64');
}

/** A fresh Ed25519 private key, PKCS#8 PEM. */
export function generateSigningKeyPem(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

export const sealP12Task = offloadTask<typeof generateSealP12>(__filename, 'generateSealP12');
export const signingKeyTask = offloadTask<typeof generateSigningKeyPem>(__filename, 'generateSigningKeyPem');
