"""Builds the written agreements that are Word or PDF files (cover pages as tables) from the text below.

Run once with python-docx and reportlab installed (`python3 eval/written/make-files.py`); the files are
committed, with their SHA-256 in eval/written.json, so the evaluation never runs this.
"""
import sys
from pathlib import Path

from docx import Document
from reportlab.lib import colors
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

HERE = Path(__file__).parent


def docx_with_cover(path, title, rows, paragraphs):
    doc = Document()
    doc.add_heading(title, level=1)
    table = doc.add_table(rows=0, cols=2)
    table.style = "Table Grid"
    for label, value in rows:
        cells = table.add_row().cells
        cells[0].text = label
        cells[1].text = value
    for p in paragraphs:
        if p.startswith("# "):
            doc.add_heading(p[2:], level=2)
        else:
            doc.add_paragraph(p)
    doc.core_properties.author = "eval"
    doc.save(path)


def pdf_with_cover(path, title, rows, paragraphs):
    styles = getSampleStyleSheet()
    story = [Paragraph(title, styles["Title"]), Spacer(1, 12)]
    table = Table([[label, Paragraph(value, styles["BodyText"])] for label, value in rows], colWidths=[150, 320])
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.grey), ("VALIGN", (0, 0), (-1, -1), "TOP")]))
    story += [table, Spacer(1, 18)]
    for p in paragraphs:
        story += [Paragraph(p[2:], styles["Heading2"]) if p.startswith("# ") else Paragraph(p, styles["BodyText"]), Spacer(1, 6)]
    SimpleDocTemplate(str(path), pagesize=LETTER, title=title, author="eval", creator="eval", producer="eval").build(story)


def heldout():
    docx_with_cover(
        HERE / "heldout" / "nda-harborlane-quillfeather.docx",
        "Mutual Non-Disclosure Agreement",
        [
            ("Effective Date", "April 14, 2026"),
            ("Party 1", "Harbor Lane Analytics, Inc., a Delaware corporation"),
            ("Party 2", "Quillfeather Media LLC, an Illinois limited liability company"),
            ("Purpose", "Evaluating a potential data licensing relationship between the parties"),
            ("Term of Agreement", "2 years from the Effective Date"),
            ("Confidentiality Period", "3 years after the end of the Term of Agreement"),
            ("Governing Law", "Illinois"),
            ("Jurisdiction", "State and federal courts located in Cook County, Illinois"),
        ],
        [
            "By signing below, each party agrees to the Standard Terms that follow, which together with this cover page form the Agreement.",
            "# Standard Terms",
            "1. Confidential Information. Confidential Information means any non-public business, technical or financial information that one party (the Discloser) discloses to the other (the Recipient) for the Purpose and that is marked confidential or would reasonably be understood to be confidential.",
            "2. Use and protection. The Recipient will use Confidential Information only for the Purpose, will not disclose it except to its employees, contractors and advisers who need to know it and are bound by confidentiality duties at least as protective, and will protect it with reasonable care.",
            "3. Exclusions. These obligations do not apply to information that is publicly available through no fault of the Recipient, was known to the Recipient before disclosure without restriction, is received from a third party without restriction, or is independently developed.",
            "4. Term and termination. This Agreement lasts for the Term of Agreement stated on the cover page. This Agreement may be terminated by either party at any time upon thirty (30) days' written notice to the other party. The Recipient's duties continue for the Confidentiality Period.",
            "5. Return of materials. Upon the Discloser's request, the Recipient will promptly return or destroy Confidential Information.",
            "6. Law and disputes. The Governing Law stated on the cover page governs this Agreement, and the parties submit to the courts stated as the Jurisdiction.",
            "Harbor Lane Analytics, Inc. — By: Lena Fischer, General Counsel",
            "Quillfeather Media LLC — By: Owen Delacroix, Manager",
        ],
    )
    pdf_with_cover(
        HERE / "heldout" / "order-form-lumen-alder.pdf",
        "Order Form",
        [
            ("Customer", "Alder &amp; Finch Bakery Co."),
            ("Provider", "Lumen Ledger, Inc."),
            ("Order Effective Date", "June 1, 2026"),
            ("Subscription Term", "12 months"),
            ("Renewal", "Automatic renewal for successive 12-month terms unless either party gives notice of non-renewal at least 30 days before the end of the then-current Subscription Term"),
            ("Products", "Lumen Ledger Bookkeeping, Professional edition, 10 seats"),
            ("Fees", "USD 18,000 per year, invoiced annually in advance"),
            ("Payment Terms", "Net 30"),
            ("Governing Law", "New York"),
        ],
        [
            "This Order Form is governed by the Lumen Ledger Customer Terms published at the Provider's website on the Order Effective Date, which are incorporated by reference. If this Order Form conflicts with those terms, this Order Form controls.",
            "Provider will provide the products above to Customer during the Subscription Term. Customer's usage is limited to the seats listed. Additional seats may be added by a further order at the then-current list price.",
            "Accepted by Alder &amp; Finch Bakery Co. (Marisol Greene, Owner) and Lumen Ledger, Inc. (Kenji Watanabe, Account Executive).",
        ],
    )


def tuning():
    docx_with_cover(
        HERE / "tuning" / "nda-cobalt-wren.docx",
        "Mutual Nondisclosure Agreement - Cover Page",
        [
            ("Party A", "Cobalt Ridge Software, Inc., a Colorado corporation"),
            ("Party B", "Wren & Hollis Design Studio LLC"),
            ("Effective Date", "September 8, 2026"),
            ("Term", "One (1) year from the Effective Date"),
            ("Governing Law", "Colorado"),
            ("Venue", "State or federal courts in Denver, Colorado"),
            ("Notice Address (Party A)", "1801 Wynkoop Street, Denver, CO 80202"),
            ("Notice Address (Party B)", "77 Larimer Square, Denver, CO 80202"),
        ],
        [
            "# Standard Terms",
            "1. Each party may disclose Confidential Information to the other for the purpose of discussing a website redesign engagement.",
            "2. The receiving party will protect the disclosing party's Confidential Information with reasonable care and use it only for that purpose.",
            "3. Either party may end this Agreement at any time by written notice. Confidentiality duties survive for two years after it ends.",
        ],
    )
    pdf_with_cover(
        HERE / "tuning" / "order-form-pelican-north.pdf",
        "Service Order",
        [
            ("Customer", "Pelican Bay Aquarium Foundation"),
            ("Vendor", "Northstar Ticketing Systems, Inc."),
            ("Effective Date", "March 30, 2026"),
            ("Initial Term", "Three (3) years"),
            ("Renewal", "Renews automatically for successive one-year terms unless either party gives 90 days' notice before the end of the current term"),
            ("Payment Terms", "Invoices due within 30 days"),
            ("Governing Law", "State of California"),
        ],
        [
            "This Service Order is governed by the Northstar Master Terms. Vendor will provide the ticketing platform and support described in Schedule 1.",
            "Signed by Pelican Bay Aquarium Foundation and Northstar Ticketing Systems, Inc.",
        ],
    )


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "tuning"
    heldout() if which == "heldout" else tuning()
    sys.exit(0)
