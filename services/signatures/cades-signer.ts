/**
 * The CMS signature of a PAdES baseline B-B seal (ETSI EN 319 142-1): SignedData, detached,
 * whose signed attributes are the content type, the message digest and the ESS
 * signing-certificate-v2 (RFC 5035), which binds the signature to the certificate that made
 * it. PAdES puts the claimed signing time in the signature dictionary's /M, so the CMS
 * carries no signing-time attribute. @signpdf's P12Signer adds signing-time and lacks
 * signing-certificate-v2 (node-forge's PKCS#7 writer knows only three attributes), so this
 * signer writes the structure itself with node-forge's ASN.1 and signs with node:crypto.
 */
import { createHash, createPrivateKey, sign } from 'node:crypto';
import forge from 'node-forge';
import { Signer } from '@signpdf/utils';

const { asn1 } = forge;
const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  sha256: '2.16.840.1.101.3.4.2.1',
  rsaEncryption: '1.2.840.113549.1.1.1',
};

const seq = (items: forge.asn1.Asn1[]) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, items);
const set = (items: forge.asn1.Asn1[]) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SET, true, items);
const oid = (id: string) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(id).getBytes());
const octets = (b: Buffer) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, b.toString('binary'));
const int = (n: number) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, asn1.integerToDer(n).getBytes());
const algorithm = (id: string) => seq([oid(id), asn1.create(asn1.Class.UNIVERSAL, asn1.Type.NULL, false, '')]);
const attribute = (type: string, value: forge.asn1.Asn1) => seq([oid(type), set([value])]);
const der = (node: forge.asn1.Asn1) => Buffer.from(asn1.toDer(node).getBytes(), 'binary');

export class CadesSigner extends Signer {
  private readonly key: forge.pki.PrivateKey;
  private readonly certificate: forge.pki.Certificate;
  private readonly chain: forge.pki.Certificate[];

  constructor(p12: Buffer, passphrase: string) {
    super();
    const parsed = forge.pkcs12.pkcs12FromAsn1(asn1.fromDer(p12.toString('binary')), false, passphrase);
    const keyBag = parsed.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag! })[forge.pki.oids.pkcs8ShroudedKeyBag!]?.[0];
    const certs = (parsed.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!] ?? []).flatMap((b) =>
      b.cert ? [b.cert] : [],
    );
    if (!keyBag?.key) throw new Error('the PKCS#12 holds no private key');
    const key = keyBag.key;
    // The certificate of the key: its public modulus and exponent are the key's.
    const mine = certs.find((c) => {
      const pub = c.publicKey as forge.pki.rsa.PublicKey;
      return pub.n.compareTo(key.n) === 0 && pub.e.compareTo(key.e) === 0;
    });
    if (!mine) throw new Error('the PKCS#12 holds no certificate for its private key');
    this.key = key;
    this.certificate = mine;
    this.chain = certs;
  }

  override sign(pdf: Buffer): Promise<Buffer> {
    const certAsn1 = forge.pki.certificateToAsn1(this.certificate);
    // tbsCertificate: [0] version, serialNumber, signature, issuer, ...
    const tbs = (certAsn1.value as forge.asn1.Asn1[])[0]!.value as forge.asn1.Asn1[];
    const serial = tbs[1]!;
    const issuer = tbs[3]!;
    const certHash = createHash('sha256').update(der(certAsn1)).digest();
    // ESSCertIDv2 { hashAlgorithm DEFAULT sha256 (so left out), certHash, issuerSerial { GeneralNames { [4] Name }, serial } }
    const issuerSerial = seq([seq([asn1.create(asn1.Class.CONTEXT_SPECIFIC, 4, true, [issuer])]), serial]);
    const signingCertificateV2 = seq([seq([seq([octets(certHash), issuerSerial])])]);

    // DER orders a SET OF by the encodings of its elements.
    const attributes = [
      attribute(OID.contentType, oid(OID.data)),
      attribute(OID.messageDigest, octets(createHash('sha256').update(pdf).digest())),
      attribute(OID.signingCertificateV2, signingCertificateV2),
    ].sort((a, b) => Buffer.compare(der(a), der(b)));
    // The signature covers the attributes' DER as a SET; they travel as [0] IMPLICIT.
    const keyPem = forge.pki.privateKeyToPem(this.key);
    const signature = sign('sha256', der(set(attributes)), createPrivateKey(keyPem));

    const signerInfo = seq([
      int(1),
      seq([issuer, serial]),
      algorithm(OID.sha256),
      asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, attributes),
      algorithm(OID.rsaEncryption),
      octets(signature),
    ]);
    const signedData = seq([
      int(1),
      set([algorithm(OID.sha256)]),
      seq([oid(OID.data)]),
      asn1.create(
        asn1.Class.CONTEXT_SPECIFIC,
        0,
        true,
        this.chain.map((c) => forge.pki.certificateToAsn1(c)),
      ),
      set([signerInfo]),
    ]);
    return Promise.resolve(der(seq([oid(OID.signedData), asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [signedData])])));
  }
}
