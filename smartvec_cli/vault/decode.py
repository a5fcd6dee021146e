"""A note's bytes as text, in whatever encoding it was saved: UTF-8 first, else what charset-normalizer finds.

Old notes are often Latin-1 or Windows-1252, and Windows editors save UTF-16 with a byte-order
mark. Detection from a short note is uncertain: charset-normalizer rates several single-byte
code pages as equally clean for a few accented letters (Windows-1250 reads "crème" as "crčme"),
so Windows-1252, the common case for old Western notes, wins whenever it reads the note as
cleanly as the best candidate. Only what no encoding reads as text is treated as binary.
"""

from __future__ import annotations

import codecs

SNIFF_BYTES = 8192
WESTERN = "cp1252"
TIE_MARGIN = 0.1
"""How much messier than the best reading (charset-normalizer's chaos, 0-1) Windows-1252 may be and still win."""
UNICODE_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def decode_note(data: bytes) -> tuple[str, str] | None:
    """(text, encoding), or None when the bytes are not text in any encoding (a binary file)."""
    has_bom = data.startswith(UNICODE_BOMS)
    if not has_bom:
        if b"\x00" in data[:SNIFF_BYTES]:
            return None
        try:
            return data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            pass
    from charset_normalizer import from_bytes

    matches = from_bytes(data)
    best = matches.best()
    if best is None:
        return None
    if not has_bom:
        for match in matches:
            if match.chaos <= best.chaos + TIE_MARGIN and WESTERN in match.could_be_from_charset:
                try:
                    return data.decode(WESTERN), WESTERN
                except UnicodeDecodeError:
                    break
    text = str(best)
    if "\x00" in text:
        return None
    return text, best.encoding
