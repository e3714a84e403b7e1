/**
 * The PDF seal: a PAdES signature (ETSI.CAdES.detached, @signpdf) by the service's
 * X.509 certificate over the whole file except the signature's own /Contents. The
 * certificate and key are PDF_SEAL_P12 (a PKCS#12, base64) when configured; otherwise a
 * self-signed RSA-3072 certificate generated once (in an offload thread, only when the store
 * has none: ./service-keys.ts) and kept in the store encrypted, like the Ed25519 certificate
 * key (services/signatures/signing-key.ts), so the API and every worker seal alike.
 */
import { X509Certificate, createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import forge from 'node-forge';
import type { PDFDocument } from 'pdf-lib';
import signpdf from '@signpdf/signpdf';
import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import { SUBFILTER_ETSI_CADES_DETACHED } from '@signpdf/utils';
import type { Config } from '../../platform/config';
import type { Engines } from '../../platform/engines';
import { CadesSigner } from './cades-signer';
import { sealP12Task } from './generate-service-keys';
import { KEY_GENERATION_TIMEOUT_MS, storedServiceKey } from './service-keys';

const KEY_ID = 'pdf-seal';
/** Room for the CMS: a 3072-bit signature and a certificate chain of a few KB. */
const SIGNATURE_LENGTH = 16384;

export interface SealIdentity {
  p12: Buffer;
  passphrase: string;
  certificatePem: string;
  /** SHA-256 of the certificate's DER, hex. */
  fingerprint: string;
  subject: string;
}

type SealServices = Pick<Engines, 'offload'> & { config: Pick<Config, 'PDF_SEAL_P12' | 'PDF_SEAL_P12_PASSWORD' | 'ENCRYPTION_KEY'> };

// One identity per configuration (a test's second API with its own configuration loads its own).
const cached = new WeakMap<object, Promise<SealIdentity>>();

export function getSealIdentity(s: SealServices): Promise<SealIdentity> {
  let identity = cached.get(s.config);
  if (!identity) {
    identity = load(s).catch((err: unknown) => {
      cached.delete(s.config);
      throw err;
    });
    cached.set(s.config, identity);
  }
  return identity;
}

function identityOf(p12: Buffer, passphrase: string): SealIdentity {
  const parsed = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(forge.util.createBuffer(p12.toString('binary'))), false, passphrase);
  const certBag = forge.pki.oids.certBag!;
  const cert = parsed.getBags({ bagType: certBag })[certBag]?.[0]?.cert;
  if (!cert) throw new Error('PDF_SEAL_P12 holds no certificate');
  const certificatePem = forge.pki.certificateToPem(cert);
  const x509 = new X509Certificate(certificatePem);
  return { p12, passphrase, certificatePem, fingerprint: x509.fingerprint256.replace(/:/g, '').toLowerCase(), subject: x509.subject };
}

async function load(s: SealServices): Promise<SealIdentity> {
  const { config } = s;
  if (config.PDF_SEAL_P12) return identityOf(Buffer.from(config.PDF_SEAL_P12, 'base64'), config.PDF_SEAL_P12_PASSWORD);
  const stored = await storedServiceKey(s, KEY_ID, async () => {
    const passphrase = randomBytes(24).toString('base64url');
    const p12 = await s.offload.run(sealP12Task, { passphrase }, { timeoutMs: KEY_GENERATION_TIMEOUT_MS });
    return JSON.stringify({ p12, passphrase });
  });
  const { p12, passphrase } = JSON.parse(stored) as { p12: string; passphrase: string };
  return identityOf(Buffer.from(p12, 'base64'), passphrase);
}

/** The sealed bytes of `pdf`: a signature field and its placeholder are added, then the file is signed. */
export async function sealPdf(pdf: PDFDocument, identity: SealIdentity, info: { reason: string; signingTime: Date }): Promise<Buffer> {
  pdflibAddPlaceholder({
    pdfDoc: pdf,
    reason: info.reason,
    contactInfo: '',
    name: identity.subject.replace(/^.*CN=([^\n,]+).*$/s, '$1'),
    location: '',
    signingTime: info.signingTime,
    signatureLength: SIGNATURE_LENGTH,
    subFilter: SUBFILTER_ETSI_CADES_DETACHED,
    appName: 'contract-lifecycle service',
  });
  // Object streams stay off: @signpdf finds the placeholder in the file's plain text.
  const unsigned = Buffer.from(await pdf.save({ useObjectStreams: false }));
  return signpdf.sign(unsigned, new CadesSigner(identity.p12, identity.passphrase));
}

export interface SealCheck {
  valid: boolean;
  covers_whole_document: boolean;
  signed_by: string | null;
  /** The certificate is the service's sealing certificate. */
  service_certificate: boolean;
  reason?: string;
}

const refused = (reason: string): SealCheck => ({
  valid: false,
  covers_whole_document: false,
  signed_by: null,
  service_certificate: false,
  reason,
});

/**
 * Checks the last signature of a PDF: its byte range covers the whole file but the
 * signature's own hex string, the CMS message digest matches those bytes, and the signed
 * attributes verify with the certificate the CMS carries.
 */
export function checkSeal(bytes: Buffer, identity: Pick<SealIdentity, 'fingerprint'>): SealCheck {
  const text = bytes.toString('latin1');
  const at = text.lastIndexOf('/ByteRange');
  const m = at === -1 ? null : /^\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(text.slice(at));
  if (!m) return refused('no signature found');
  const [a, b, c, d] = m.slice(1).map(Number) as [number, number, number, number];
  const covers = a === 0 && c + d === bytes.length && bytes[b] === 0x3c && bytes[c - 1] === 0x3e;
  const signed = Buffer.concat([bytes.subarray(a, a + b), bytes.subarray(c, c + d)]);
  try {
    const hex = text.slice(b + 1, c - 1).replace(/(00)+$/, '');
    const msg = forge.pkcs7.messageFromAsn1(
      forge.asn1.fromDer(forge.util.createBuffer(Buffer.from(hex, 'hex').toString('binary'))),
    ) as forge.pkcs7.PkcsSignedData & { rawCapture: { authenticatedAttributes: forge.asn1.Asn1[]; signature: string } };
    const cert = msg.certificates[0];
    if (!cert) return refused('the signature carries no certificate');
    const attrs = msg.rawCapture.authenticatedAttributes;
    const digestAttr = attrs.find(
      (x) => forge.asn1.derToOid((x.value as forge.asn1.Asn1[])[0]!.value as string) === forge.pki.oids.messageDigest!,
    );
    const digest =
      digestAttr && Buffer.from(((digestAttr.value as forge.asn1.Asn1[])[1]!.value as forge.asn1.Asn1[])[0]!.value as string, 'binary');
    const digestOk = digest?.equals(createHash('sha256').update(signed).digest()) === true;
    // The signature covers the DER of the attributes as a SET (tag 0x31), not their [0] IMPLICIT form.
    const set = forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.SET, true, attrs);
    const pem = forge.pki.certificateToPem(cert);
    const signatureOk = verify(
      'sha256',
      Buffer.from(forge.asn1.toDer(set).getBytes(), 'binary'),
      createPublicKey(pem),
      Buffer.from(msg.rawCapture.signature, 'binary'),
    );
    const x509 = new X509Certificate(pem);
    const valid = digestOk && signatureOk;
    return {
      valid,
      covers_whole_document: covers,
      signed_by: x509.subject.replace(/\n/g, ', '),
      service_certificate: x509.fingerprint256.replace(/:/g, '').toLowerCase() === identity.fingerprint,
      ...(valid ? {} : { reason: digestOk ? 'the signature does not verify' : 'the document changed after it was sealed' }),
    };
  } catch {
    return refused('the signature cannot be read');
  }
}
