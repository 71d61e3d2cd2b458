"""Markdown structure → sentences, for extraction only (`register.canonical`).

A list item, a table row or a heading is a sentence of its own in a chat turn, but the rule
families read clause starts ("- moved to Leeds" has "-" where the subject would be) and
copulas ("Rent | $900 a month" has none). The rewrite:

* a table (a header row, a `|---|` rule, body rows) → one sentence per body row: a two-column
  table "first cell is second cell" (a key/value list: "rent is $900 a month"), a wider one
  "header is cell" for each cell, "; " between them;
* a list item (`-`, `*`, `+`, `•`, `1.`, `1)`) and a heading (`#`) → its text, ending a
  sentence; a "Label: value" item is read as "Label is value", a discourse label ("Update:",
  "Note:", "PS:") is dropped;
* a quotation marker (`>`) and a rule (`---`) are dropped, emphasis markers (`**`, `*`,
  `__`, `_`) leave their words, struck text (`~~old~~`) goes (it is what no longer holds), a
  link keeps its text.

Fenced code never reaches this module (`register.canonical` keeps it byte for byte).
"""

from __future__ import annotations

import re

_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^\s*(?:[-*+•▪◦‣]|\d{1,3}[.)])\s+(.*)$")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")
_RULE = re.compile(r"^\s*(?:[-*_]\s*){3,}$")
_STRUCK = re.compile(r"~~.+?~~")
_EMPHASIS = (
    re.compile(r"\*\*(.+?)\*\*"),
    re.compile(r"__(.+?)__"),
    re.compile(r"(?<![\w*])\*(?![\s*])(.+?)(?<![\s*])\*(?![\w*])"),
    re.compile(r"(?<![\w_])_(?![\s_])(.+?)(?<![\s_])_(?![\w_])"),
)
_LINK = re.compile(r"\[([^\]\n]+)\]\([^)\n]*\)")
#: "Label: value" at the start of an item: a short label without a verb of its own.
_LABEL = re.compile(r"^([A-Za-z][\w' /-]{0,30}?)\s*:\s+(\S.*)$")
#: Labels that introduce what follows rather than name an attribute.
_LABEL_WORDS = (
    "update note notes ps p.s edit re subject fyi tldr tl;dr summary todo news "
    "question q a answer reminder context background btw also ok so"
)
_DISCOURSE_LABELS = frozenset(_LABEL_WORDS.split())
_MARKUP = re.compile(r"[|#*_~>\[]|^\s*(?:[-+•▪◦‣]|\d{1,3}[.)])\s", re.M)


def has_markup(text: str) -> bool:
    return _MARKUP.search(text) is not None


def prose_of_markdown(text: str) -> str:
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if i + 1 < len(lines) and "|" in lines[i] and _TABLE_RULE.match(lines[i + 1]):
            header = _cells(lines[i])
            i += 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                out.append(_row(header, _cells(lines[i])))
                i += 1
            continue
        out.append(_line(lines[i]))
        i += 1
    return "\n".join(out)


def _cells(line: str) -> list[str]:
    return [_inline(c.strip()) for c in line.strip().strip("|").split("|")]


def _row(header: list[str], cells: list[str]) -> str:
    if len(cells) == 2 and all(cells):
        return _sentence(f"{cells[0]} is {cells[1]}")
    pairs = [f"{h} is {c}" if h else c for h, c in zip(header, cells, strict=False) if c]
    return _sentence("; ".join(pairs))


def _line(line: str) -> str:
    if _RULE.match(line):
        return ""
    line = _QUOTE.sub("", line)
    heading = _HEADING.match(line)
    if heading:
        return _sentence(_inline(heading.group(1)))
    item = _ITEM.match(line)
    if item is None:
        return _inline(line)
    text = _inline(item.group(1))
    label = _LABEL.match(text)
    if label:
        name, value = label.group(1).strip(), label.group(2).strip()
        if name.lower().rstrip(".") in _DISCOURSE_LABELS:
            text = value
        elif len(name.split()) <= 3:
            text = f"{name} is {value}"
    return _sentence(text)


def _inline(text: str) -> str:
    text = _STRUCK.sub("", text)
    for pattern in _EMPHASIS:
        text = pattern.sub(r"\1", text)
    return _LINK.sub(r"\1", text).strip()


def _sentence(text: str) -> str:
    text = text.strip()
    if not text or text[-1] in ".!?:;":
        return text
    return text + "."
