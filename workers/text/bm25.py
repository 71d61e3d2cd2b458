"""BM25 sparse vectors for short facts, in pure Python.

Only the term-frequency half of BM25 lives here: the store applies IDF (Qdrant's `Modifier.IDF`,
reproduced by `InMemoryVectorIndex`), so the score of a document d for a query q is

    Σ_{t ∈ q ∩ d}  idf(t) · tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 - b + b·|d|/avgdl))

Token indices are a stable 31-bit hash of the token (CRC-32), never a vocabulary built at run
time: the vectors are derived from text alone, so replaying the log on another machine, or in
another process, yields identical indices. Changing the tokenizer, the stemmer, the stopwords or
the hash changes the indices of stored vectors: it requires re-indexing (a replay).
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

from workers.ports import SparseVector

K1 = 1.2
B = 0.75
#: Extracted facts are one short sentence; a collection-wide average would make old vectors
#: drift as the corpus grows, and a constant keeps document vectors a pure function of text.
AVG_DOC_LEN = 12.0

_HASH_MASK = 0x7FFF_FFFF

# Numbers first, so that "1,100" and "$1,100.50" keep their digits together ("1100",
# "1100.50") instead of splitting at the comma; a comma list like "1,2,3" does not match the
# thousands pattern and falls through to single digits.
_TOKEN_RE = re.compile(
    r"\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![^\W_])"  # 1,100  12,345.67
    r"|\d+\.\d+(?![^\W_])"  # 3.5  (not "3.5k")
    r"|[^\W_]+",  # any run of letters/digits (Unicode aware)
)
# Apostrophes are deleted before splitting so that "sarah's" and "don't" stay one word.
_APOSTROPHES_RE = re.compile(r"['’‘`]")

_STOPWORD_TEXT = """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we
    were what when where which while who whom why will with would you your yours yourself
    yourselves im ive youre dont doesnt didnt isnt arent wasnt werent cant wont also
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def tokenize(text: str) -> list[str]:
    """Lowercased, stemmed tokens without stopwords, in text order (repeats kept)."""
    lowered = _APOSTROPHES_RE.sub("", text.lower())
    tokens: list[str] = []
    for match in _TOKEN_RE.finditer(lowered):
        raw = match.group()
        if raw[0].isdigit() and "," in raw:
            raw = raw.replace(",", "")
        if raw in _STOPWORDS:
            continue
        if len(raw) == 1 and not raw.isdigit():
            continue  # stray letters ("e g", initials) only add noise to short facts
        tokens.append(_stem(raw))
    return tokens


@lru_cache(maxsize=65536)  # a vocabulary, not a corpus: every fact written hashes its words
def token_index(token: str) -> int:
    """The sparse dimension of a token: CRC-32 of its UTF-8 bytes, kept to 31 bits."""
    return zlib.crc32(token.encode("utf-8")) & _HASH_MASK


def document_vector(text: str) -> SparseVector:
    """BM25 term-frequency weights of a stored fact (IDF is applied by the store)."""
    tokens = tokenize(text)
    norm = K1 * (1.0 - B + B * len(tokens) / AVG_DOC_LEN)
    weights = ((token, tf * (K1 + 1.0) / (tf + norm)) for token, tf in Counter(tokens).items())
    return _merge(weights)


def query_vector(text: str) -> SparseVector:
    """Weight 1.0 per distinct query token, so the score is Σ idf · document weight."""
    return _merge((token, 1.0) for token in dict.fromkeys(tokenize(text)))


def _merge(weights: Iterable[tuple[str, float]]) -> SparseVector:
    # Two tokens may hash to the same index (rare with 31 bits): their weights add up, which
    # is what a dot product over the unhashed vocabulary would have given for both.
    merged: dict[int, float] = {}
    for token, weight in weights:
        index = token_index(token)
        merged[index] = merged.get(index, 0.0) + weight
    ordered = sorted(merged.items())
    return SparseVector(indices=tuple(i for i, _ in ordered), values=tuple(w for _, w in ordered))


@lru_cache(maxsize=65536)  # pure; the same words come back in every fact and query
def _stem(token: str) -> str:
    """A light English suffix stripper: plurals, -ed, -ing and a final -e.

    Deliberately cruder than Porter: it must only make "hikes", "hiked", "hiking" and
    "hike" meet. Numbers and short or non-ASCII words are left alone.
    """
    if len(token) <= 3 or not token.isascii() or not token.isalpha():
        return token
    stem = token
    if stem.endswith("sses"):
        stem = stem[:-2]
    elif stem.endswith("ies") and len(stem) > 4:
        stem = stem[:-3] + "y"
    elif stem.endswith("s") and not stem.endswith(("ss", "us", "is")):
        stem = stem[:-1]
    if stem.endswith("ied") and len(stem) > 4:
        stem = stem[:-3] + "y"
    elif stem.endswith("eed"):
        pass  # "need", "agreed": the -ed is part of the word
    elif stem.endswith("ed") and _has_vowel(stem[:-2]) and len(stem) >= 5:
        stem = _undouble(stem[:-2])
    elif stem.endswith("ing") and _has_vowel(stem[:-3]) and len(stem) >= 6:
        stem = _undouble(stem[:-3])
    if stem.endswith("e") and not stem.endswith("ee") and len(stem) > 3:
        stem = stem[:-1]
    return stem


def _has_vowel(text: str) -> bool:
    return any(ch in "aeiouy" for ch in text)


def _undouble(stem: str) -> str:
    # "running" -> "runn" -> "run"; but "falling" -> "fall" keeps its double l.
    if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in "aeioulsz":
        return stem[:-1]
    return stem
