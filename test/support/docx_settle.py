"""An independent reader of Word's tracked changes, for test/component/versions/word-round-trip.test.ts.

Settles every tracked change of a DOCX the way Word's "accept all" or "reject all" does, on
the XML with lxml, then reads the paragraphs with python-docx (a heading style as "# " lines,
the text convention of the service). Prints {"accept": [...], "reject": [...]}: the non-blank
paragraphs of each, trailing spaces cut.
"""
import json
import sys

import docx
from docx.oxml import OxmlElement
from docx.oxml.ns import qn


def settle(path, side):
    document = docx.Document(path)
    body = document.element.body
    dropped = ("w:del", "w:moveFrom") if side == "accept" else ("w:ins", "w:moveTo")
    kept = ("w:ins", "w:moveTo") if side == "accept" else ("w:del", "w:moveFrom")
    # A change inside a run-properties element marks a paragraph mark (or formatting): left for below.
    for tag in dropped:
        for el in list(body.iter(qn(tag))):
            if el.getparent().tag != qn("w:rPr"):
                el.getparent().remove(el)
    for tag in kept:
        for el in list(body.iter(qn(tag))):
            parent = el.getparent()
            if parent.tag == qn("w:rPr"):
                continue
            at = parent.index(el)
            for child in list(el):
                parent.insert(at, child)
                at += 1
            parent.remove(el)
    for el in list(body.iter(qn("w:delText"))):
        text = OxmlElement("w:t")
        text.text = el.text
        text.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
        el.getparent().replace(el, text)
    # A paragraph whose mark is dropped joins the next paragraph.
    mark = qn(dropped[0])
    for p in list(body.iterchildren(qn("w:p"))):
        ppr = p.find(qn("w:pPr"))
        rpr = ppr.find(qn("w:rPr")) if ppr is not None else None
        if rpr is None or rpr.find(mark) is None:
            continue
        following = p.getnext()
        while following is not None and following.tag != qn("w:p"):
            following = following.getnext()
        if following is None:
            continue
        anchor = following.find(qn("w:pPr"))
        at = following.index(anchor) + 1 if anchor is not None else 0
        for child in [c for c in p if c.tag != qn("w:pPr")]:
            following.insert(at, child)
            at += 1
        p.getparent().remove(p)
    lines = []
    for paragraph in document.paragraphs:
        text = paragraph.text.rstrip()
        if not text.strip():
            continue
        style = paragraph.style.name if paragraph.style is not None else ""
        if style.startswith("Heading "):
            text = "#" * int(style.split(" ")[1]) + " " + text
        lines.append(text)
    return lines


print(json.dumps({"accept": settle(sys.argv[1], "accept"), "reject": settle(sys.argv[1], "reject")}))
