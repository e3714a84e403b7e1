"""What makes a PDF signature PAdES baseline B-B (ETSI EN 319 142-1, 6.3), read with pyHanko:
the SubFilter, the signed attributes of its CMS (an ESS signing-certificate-v2 that matches
the signer's certificate, and no CMS signing-time: the claimed time is the dictionary's /M).
Prints one JSON object; signed-pdf.test.ts asserts on it."""
import json
import sys

from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.general import check_ess_certid
from pyhanko.sign.validation.generic_cms import get_signing_cert_attr

with open(sys.argv[1], 'rb') as f:
    sig = PdfFileReader(f).embedded_signatures[-1]
    attrs = sig.signer_info['signed_attrs']
    ess = get_signing_cert_attr(attrs)
    print(json.dumps({
        'sub_filter': str(sig.sig_object['/SubFilter']),
        'signed_attrs': sorted(a['type'].native for a in attrs),
        'signing_time_in_dictionary': '/M' in sig.sig_object,
        'ess_v2': type(ess).__name__ == 'SigningCertificateV2',
        'ess_matches_signer': ess is not None and check_ess_certid(sig.signer_cert, ess['certs'][0]),
    }))
