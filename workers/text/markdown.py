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

Every pattern here is linear in the length of the text (a turn has no maximum length and this
runs on ingest): no two adjacent quantifiers can share a character (the review of round 14
found `# a` + spaces cubic, `[a](` repeated quadratic), a span is closed by the first
character that cannot be inside it, and what a regex would backtrack over (a heading's
closing `#`s, a table rule's cells) is parsed in Python.
"""

from __future__ import annotations

import re

#: One cell of a table's header separator (`---`, `:--`, `--:`, `:-:`).
_RULE_CELL = re.compile(r":?-{2,}:?")
#: A heading: its text runs to the end of the line (closing `#`s are cut in `_heading_text`).
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.*)$")
_ITEM = re.compile(r"^\s*(?:[-*+•▪◦‣]|\d{1,3}[.)])\s+(.*)$")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")
_RULE = re.compile(r"^[ \t]*(?:[-*_][ \t]*){3,}$")
#: Emphasis and struck spans: a single-marker span stops at the next marker, a double one
#: is at most `_SPAN` characters, so an opener with no closer ("*x *x *x …") is given up
#: there instead of at the line end, which keeps the scan linear (a longer emphasised span
#: keeps its markers, harmlessly).
_SPAN = 300
_STRUCK = re.compile(rf"~~[^\n]{{1,{_SPAN}}}?~~")
_EMPHASIS = (
    re.compile(rf"\*\*([^\n]{{1,{_SPAN}}}?)\*\*"),
    re.compile(rf"__([^\n]{{1,{_SPAN}}}?)__"),
    re.compile(r"(?<![\w*])\*(?![\s*])([^*\n]+?)(?<!\s)\*(?![\w*])"),
    re.compile(r"(?<![\w_])_(?![\s_])([^_\n]+?)(?<!\s)_(?![\w_])"),
)
#: A link `[text](target)`: the text stops at the next bracket, the target at the next
#: parenthesis unless it is one balanced pair (`wiki/Foo_(bar)`), so no `[` or `(` is
#: scanned from twice.
_LINK = re.compile(r"\[([^\[\]\n]+)\]\((?:[^()\n]|\([^()\n]*\))*\)")
#: "Label: value" at the start of an item: a short label without a verb of its own.
_LABEL = re.compile(r"^([A-Za-z][\w' /-]{0,30}?)\s*:\s+(\S.*)$")
#: Labels that introduce what follows rather than name an attribute.
_LABEL_WORDS = (
    "update note notes ps p.s edit re subject fyi tldr tl;dr summary todo news "
    "question q a answer reminder context background btw also ok so"
)
_DISCOURSE_LABELS = frozenset(_LABEL_WORDS.split())
_MARKUP = re.compile(r"[|#*_~>\[]|^[ \t]*(?:[-+•▪◦‣]|\d{1,3}[.)])\s", re.M)


def has_markup(text: str) -> bool:
    return _MARKUP.search(text) is not None


def prose_of_markdown(text: str) -> str:
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if i + 1 < len(lines) and _is_table_head(lines[i], lines[i + 1]):
            header = _cells(lines[i])
            i += 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                out.append(_row(header, _cells(lines[i])))
                i += 1
            continue
        out.append(_line(lines[i]))
        i += 1
    return "\n".join(out)


def _is_table_head(line: str, rule: str) -> bool:
    """A header row and its `|---|` separator: the separator has a `|` and as many cells as
    the header, each of dashes with optional colons. A bare `--`/`---` under a line with a
    "|" is a signature separator, a rule or a setext underline, not a table (review R14 B8:
    taking it for one dropped the line above it)."""
    if "|" not in line or "|" not in rule:
        return False
    cells = _split_row(rule)
    return len(cells) == len(_split_row(line)) and all(_RULE_CELL.fullmatch(c) for c in cells)


def _split_row(line: str) -> list[str]:
    row = line.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") else row
    return [c.strip() for c in row.split("|")]


def _cells(line: str) -> list[str]:
    return [_inline(c) for c in _split_row(line)]


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
        return _sentence(_inline(_heading_text(heading.group(1))))
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


def _heading_text(text: str) -> str:
    """A heading's text without its closing sequence: `#`s preceded by a space ("# Plans ##"
    → "Plans"; "# C#" keeps its "#", as CommonMark reads it)."""
    text = text.rstrip()
    body = text.rstrip("#")
    if body != text and (not body or body[-1] in " \t"):
        text = body.rstrip()
    return text


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
