"""Chat register → canonical prose, for extraction only (issue 11, round 13).

The rule families were grown on written chat prose; real turns come as voice-note transcripts
(fillers, stutters, no punctuation), texting (shorthand, missing apostrophes, stretched
letters, emoji), markdown (tables, lists, headings, emphasis) and professional shorthand
(appt, f/u, bid). `canonical(text)` rewrites those registers into the prose the families
read. It is a closed, documented lexicon plus structural transforms — no wording of any
evaluation set — and deterministic. The raw turn is never changed: it stays the episodic
memory, verbatim, and is what is embedded and indexed; only the rule extractor reads this
text (`workers/extraction/rules.py`, `normalization.enabled` in the policy).

What it never touches: fenced code, inline code, URLs and e-mail addresses (kept byte for
byte), numbers (a "." before a digit is a decimal point; "mm"/"um" after a number are
units), dates and times other than the "3p" / "@ 3" forms below (dateparser reads the rest),
hyphenated words with a capital ("D-Day", "S-shaped"), names (capitalised doubles such as
"Bora Bora"; "Ive", "IM", "RN" are not shorthand), casing (except a lone "i" and "Im"/"Ive"
opening a sentence), negations ("not not"), hedges ("kind of"), words outside the lexicon,
and nothing across a line break. Ambiguous shorthand is expanded only in context ("wont"
unless after a determiner: "as is my wont"; "rn" and "prob" not after one: "an rn", "the
prob"; "bc" not after a number; "weds" only after a day's preposition; "r" only after a
pronoun; the family abbreviations DH, SIL … only after a possessive and in capitals).

Cost: every pattern is linear in the text's length (a turn has no maximum length, and this
runs on ingest, on the fast path's trigger check too): a whitespace run is matched from its
start only, a token from its first character, a span stops at the first character that
cannot be inside it; what would backtrack is done in Python (review R14 B1, B2, R3b).

Fast path: a text with no trigger (`_triggered`: a lexicon word, a lone lower-case "i", a
doubled word, a markdown, emoji or emoticon character, a stretched letter, a run-on with a
discourse marker) is returned as it is (on LoCoMo dev 2,564 of 2,760 turns).
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

from workers.text.markdown import has_markup, prose_of_markdown

# ---------------------------------------------------------------- lexicon (closed lists)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Texting and chat shorthand, matched as whole words in any case.
# fmt: off
_SHORTHAND: dict[str, str] = {
    # time
    "tmrw": "tomorrow", "tmr": "tomorrow", "tmrow": "tomorrow", "tmw": "tomorrow",
    "2moro": "tomorrow", "2morrow": "tomorrow", "tomoz": "tomorrow", "tonite": "tonight",
    "2nite": "tonight", "2day": "today", "b4": "before", "rn": "right now",
    "wknd": "weekend", "wkend": "weekend", "bday": "birthday", "b-day": "birthday",
    "nite": "night", "tues": "Tuesday", "weds": "Wednesday", "thurs": "Thursday",
    # connectives
    "bc": "because", "bcuz": "because", "bcoz": "because", "becuz": "because", "cuz": "because",
    "coz": "because", "tho": "though", "thru": "through", "abt": "about", "w/": "with",
    "w/o": "without", "b/c": "because", "w/e": "whatever", "&": "and", "n": "and",
    # pronouns and verbs
    "u": "you", "ya": "you", "im": "I'm", "ive": "I've", "idk": "I don't know",
    "dont": "don't", "cant": "can't", "didnt": "didn't", "doesnt": "doesn't", "isnt": "isn't",
    "wasnt": "wasn't", "arent": "aren't", "werent": "weren't", "havent": "haven't",
    "hasnt": "hasn't", "hadnt": "hadn't", "couldnt": "couldn't", "wouldnt": "wouldn't",
    "shouldnt": "shouldn't", "thats": "that's", "whats": "what's", "theres": "there's",
    "youre": "you're", "theyre": "they're", "shes": "she's", "gonna": "going to",
    "wanna": "want to", "gotta": "got to", "luv": "love", "ppl": "people",
    "prob": "probably", "prolly": "probably", "probs": "probably", "def": "definitely",
    "rly": "really", "srsly": "seriously", "obvi": "obviously", "nvm": "never mind",
    "pls": "please", "plz": "please", "thx": "thanks", "thnx": "thanks", "convo": "conversation",
    # people
    "gf": "girlfriend", "bf": "boyfriend", "bff": "best friend", "bestie": "best friend",
    "hubby": "husband", "roomie": "roommate", "sis": "sister", "bro": "brother",
    # professional shorthand
    "appt": "appointment", "appts": "appointments", "mtg": "meeting", "mtgs": "meetings",
    "dept": "department", "approx": "approximately", "approx.": "approximately",
    "yrs": "years", "mos": "months", "wk": "week", "wks": "weeks", "hrs": "hours",
    "mins": "minutes", "f/u": "follow-up", "dx": "diagnosis", "dx'd": "diagnosed",
    "hx": "history", "rx": "prescription", "tx": "treatment", "sx": "symptoms",
    "bid": "twice a day", "b.i.d.": "twice a day", "tid": "three times a day",
    "t.i.d.": "three times a day", "qid": "four times a day", "qd": "once a day",
    "prn": "as needed", "qhs": "at bedtime", "y/o": "years old", "yo": "years old",
    "wef": "with effect from", "w.e.f.": "with effect from", "hereby": "", "herewith": "",
    # discourse markers that carry no fact (a negation inside "not gonna lie" would deny
    # the clause it opens, so they are dropped, not spelled out)
    "ngl": "", "tbh": "", "tbf": "", "imo": "", "imho": "", "fwiw": "", "jk": "",
}
# fmt: on
#: Shorthand that is another word in other casings ("BC", "TX", "Bid", "Def", "Yo!"), so
#: lower case only; "yo", "bid", "n" and "ya" also need their context (`_CONTEXT_ONLY`).
_LOWER_ONLY = _words(
    "u n ya bc tx rx dx hx sx bid tid qid qd prn yo def prob probs sis bro gf bf wk "
    "mos hrs mins tho thru abt rn im ive weds"
)
#: Lower-case-only shorthand that texting also capitalises when it opens a sentence ("Im
#: off", "Ive got"); capitalised anywhere else it is a name or an acronym ("Jony Ive", "an
#: IM"), all capitals it is always an acronym.
_SENTENCE_CASE = frozenset({"im", "ive"})
#: A word read as a noun when a determiner or a possessive comes first ("an rn", "the
#: prob is", "my wont"): the text before it must not end with one.
_DETERMINERS = _words("a an the my his her our your their this that")
_NOT_AFTER_DETERMINER = "".join(rf"(?<!\b{d}\s)" for d in sorted(_DETERMINERS)) + "$"
#: A dose before a dosing frequency ("20mg bid", "one tablet tid").
_DOSE = r"(?:mg|mcg|ml|tablets?|pills?|caps?|capsules?|puffs?|drops?|dose|taken?|takes)\s*$"
#: Context a word needs before it counts as shorthand (lower case, regex lookbehind-free):
#: (word → pattern the text before it must end with, pattern the text after must start with)
_CONTEXT_ONLY: dict[str, tuple[str, str]] = {
    "yo": (r"\d\s*$", ""),  # "a 34 yo woman"
    "bid": (_DOSE, ""),
    "tid": (_DOSE, ""),
    "qid": (_DOSE, ""),
    "qd": (_DOSE, ""),
    "n": (r"\w\s$", r"\s\w"),  # "rock n roll", "me n my sister"
    "ya": (r"\b(?:see|thank|love|miss|tell|told|for|to|with)\s$", ""),
    "&": (r"\w\s$", r"\s\w"),
    "sis": (r"\b(?:my|our|his|her|their|your|little|big|older|younger)\s$", ""),
    "bro": (r"\b(?:my|our|his|her|their|your|little|big|older|younger)\s$", ""),
    "wk": (r"(?:\d|\ba|\bper|\bthis|\bnext|\blast|\bevery)\s*$", ""),
    "mos": (r"\d\s*$", ""),
    "hrs": (r"\d\s*$", ""),
    "mins": (r"\d\s*$", ""),
    "def": (r"(?:^|\b(?:i|we|i'm|im|it's|its|is|was|will|would|am|are)\s)$", ""),
    "tx": (r"\b(?:my|the|on|of|for|in|started|start|finished|finish)\s$", ""),
    "rn": (_NOT_AFTER_DETERMINER, ""),  # "an rn at St Mary's" is a nurse
    "prob": (_NOT_AFTER_DETERMINER, ""),  # "the prob is" is the problem
    "bc": (r"(?<!\d\s)$", ""),  # "300 bc" is a year
    # "weds" is a verb ("my sister weds in June") unless a day's preposition comes first
    "weds": (r"\b(?:on|this|next|last|every|by|until|till|til|from|before|after)\s$", ""),
}
#: "wont" is "won't" unless a determiner makes it the noun ("as is my wont").
_WONT = re.compile(r"(?<!\bmy )(?<!\bhis )(?<!\bher )(?<!\bour )(?<!\bthe )(?<!\bas )\bwont\b")
#: "r" is "are" after a pronoun ("u r", "we r"); anywhere else it is a letter.
_R_ARE = re.compile(r"\b((?:you|we|they|these|those|there|what|where|who|how)\s)r\b", re.I)
#: A lone lower-case "i" (also "i'm", "i've"): not "i.e.", not "i-" prefixes.
_LONE_I = re.compile(r"(?<![\w'’.\-/])i(?=(?:['’](?:m|ve|d|ll)\b)|\b)(?![.\-/]\w)")
#: Family abbreviations of parenting forums, capitals after a possessive only ("my DH").
# fmt: off
_FAMILY = {
    "DH": "husband", "DW": "wife", "DS": "son", "DD": "daughter", "DP": "partner",
    "SO": "partner", "MIL": "mother-in-law", "FIL": "father-in-law",
    "SIL": "sister-in-law", "BIL": "brother-in-law",
}
# fmt: on
_FAMILY_WORD = re.compile(r"\b((?:my|our|My|Our) )(" + "|".join(_FAMILY) + r")\b")
#: Clock times in texting: "at 3p", "@ 7:30a" → "3pm"; "@ 6" → "at 6". The letter is glued
#: to the number, or spaced only where nothing follows it ("at 3 p"): "around 3 a day" and
#: "by 2 a month" are an article.
_SHORT_TIME = re.compile(
    r"((?:\bat|\bby|\bfrom|\buntil|\btill|\btil|\baround|\bbefore|\bafter|@)\s)"
    r"(1[0-2]|0?[1-9])(:[0-5]\d)?(?:([ap])|[ \t]([ap])(?=[ \t]*(?:[,;!?]|$)))\b(?![.\w])",
    re.I | re.M,
)
_AT_SIGN = re.compile(r"(?<=\s)@(?=\s)")

#: Voice-transcript fillers: dropped with the comma that follows them. Not after a number,
#: where "mm" and "um" are units ("a 35 mm lens", "a 5 um filter").
_FILLER = re.compile(
    r"(?<![\w'])(?<!\d\s)(?:u+h+m*|u+m+|e+r+m+|err+|h+m{2,}|hm|mm+|uh-huh)(?![\w'])[,.]?\s*",
    re.I,
)
#: Comma-delimited fillers ("…, you know, …", "I mean, …" opening a sentence). Hedges
#: ("kind of", "sort of") are not fillers: they weaken what they hedge, and the hedge lists
#: of the families read them.
_COMMA_FILLER = re.compile(
    r",\s*(?:you\s+know|i\s+mean|you\s+see)\s*(?=,)"
    r"|(?:^|(?<=[.!?]\s))(?:like|i\s+mean|you\s+know)\s*,\s*"
    r"|,\s*you\s+know(?=\s*(?:[.!?]|$))",
    re.I | re.M,
)
#: ", like," inside a clause is a focus particle: it goes with both commas ("the soup was,
#: like, amazing" → "the soup was amazing"); the parentheticals above keep one comma, since
#: they mostly sit where a clause ends.
_LIKE_FILLER = re.compile(r"(?<![ \t])[ \t]*,[ \t]*like[ \t]*,[ \t]*", re.I)
#: A word said twice or more in a row on one line ("I I", "the the", "we, we"). The word
#: starts a token (not after a letter or an apostrophe) and is taken whole (possessive), so
#: no split of a long token is tried twice.
_STUTTER = re.compile(r"(?<![\w'])([a-z']++)(?:[ \t,]+\1\b)+", re.I)
#: Doubles that are grammar or meaning, not a stutter: "had had", "that that", "is is"; a
#: double negation ("not not going") keeps its polarity.
_KEEP_DOUBLED = frozenset({"had", "that", "is", "do", "bye", "no", "so", "not", "never"})
#: A cut-off first letter: "w-we", "m-my", "I-I". Case-sensitive: a capital before a hyphen
#: is a name or a shape ("D-Day", "S-shaped", "T-shirt").
_CUT_LETTER = re.compile(r"(?<![\w'-])(?:([a-z])-(?=\1)|I-(?=I\b))")
#: Three or more of a letter ("sooo", "yesss", "loooove"): a letters-only token, tested for
#: the triple in `_unstretch` (a pattern with the triple inside backtracks over every split
#: of a long token).
_STRETCHED = re.compile(r"(?<!\w)[a-z]+(?!\w)", re.I)
_TRIPLE = re.compile(r"([a-z])\1\1", re.I)
#: Stretched words whose letter is single in the word ("sooo" → "so", not "soo").
_SINGLE_LETTER_WORDS = _words(
    "so no yes love hey please now oh ok yay wow nice hi why what sure yeah yep nope "
    "ugh ah omg lol much very super happy finally miss us me we go home move moved"
)
#: Laughter and emoji: a sentence boundary in texting ("moved to leeds lol rent is insane").
_LAUGH = re.compile(r"(?<![\w'])(?:lol+|lmf?ao+|rofl|(?:ha){2,}h?|(?:he){2,}|xd+)(?![\w'])", re.I)
_EMOJI = re.compile(
    "[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u2300-\u23ff\ufe0f\u200d\u20e3]+"
    r"|(?<![\w:/])(?:[:;=][-'^]?[)(\]\[DPpO3/\\|*]+|<3+|\^_\^|T_T)(?![\w/])"
)
#: Where a run-on transcript starts a new sentence: a discourse marker before a subject.
_RUN_ON_MARKER = re.compile(
    r"(?<!\s)\s+(?=(?:anyway|anyways|anyhow|btw|by\s+the\s+way|oh\s+and|and\s+then|so\s+yeah"
    r"|but\s+yeah|yeah\s+so|ok\s+so|okay\s+so|so\s+basically|so\s+anyway|also)\s+"
    r"(?:i|i'm|i've|we|we're|my|our|me|the|it|it's|there|now|then|he|she|they)\b)",
    re.I,
)
#: A run-on: this many words with no sentence punctuation.
_RUN_ON_WORDS = 14
_PUNCTUATED = re.compile(r"[.!?;\n]")
_SPACES = re.compile(r"[ \t]{2,}")
#: Punctuation tidying after the deletions; a "." before a digit is a decimal point (".5mg",
#: "ran .5 miles") and is left where it is.
_SPACE_BEFORE_PUNCT = re.compile(r"(?<![ \t])[ \t]+(?=[,.!?](?!\d))")
_DOUBLE_PUNCT = re.compile(r"([.!?])(?:[ \t]*[.,](?!\d))+")
_LEADING_PUNCT = re.compile(r"^[ \t]*[.,](?!\d)[ \t]*", re.M)

#: A lexicon word (with the full stop that may end its sentence): only these call `_expand`.
_WORD = re.compile(
    r"(?<![\w'’/])("
    + "|".join(re.escape(w) for w in sorted(_SHORTHAND, key=len, reverse=True))
    + r")(\.?)(?![\w'’])",
    re.I,
)

#: Triggers of the slow path, checked without a regex over the lexicon: a lexicon word, a
#: filler or laugh, a lone lower-case "i", a doubled word (`_triggered`); a markdown, emoji or
#: emoticon character, a stretched letter, "3p", a cut-off letter, a list marker, a comma
#: filler (`_CHAR_TRIGGER`).
_TRIGGER_WORDS = frozenset(_SHORTHAND) | _words(
    "wont r um umm uh uhh uhm er erm err hmm hm mm mmm uh-huh lol lmao lmfao rofl haha "
    "hahaha hehe xd"
)
_CASED_TRIGGERS = frozenset({"i", "i'm", "i've", "i'd", "i'll", *_FAMILY})
_CHAR_TRIGGER = re.compile(
    r"[|#*_~>`\[@&]|(?-i:[\u2000-\U0010ffff])|([a-z])\1\1|\d\s?[ap]\b|\b[a-z]-[a-z]"
    r"|^[ \t]*(?:[-+]|\d{1,3}[.)])\s|[:;=][-'^]?[)(\]\[DPpO3/|*]|<3|\^_\^"
    r"|,\s*(?:you\s+know|like|i\s+mean|you\s+see)\b"
    r"|^(?:like|i\s+mean|you\s+know)\s*,",
    re.I | re.M,
)
_STRIP = ".,!?;:\"'()"


def _triggered(text: str) -> tuple[bool, bool]:
    """(any trigger, a lexicon word among them): the second decides whether `_WORD` runs."""
    tokens = [t.strip(_STRIP) for t in text.split()]
    lower = [t.lower() for t in tokens]
    lexicon = not _TRIGGER_WORDS.isdisjoint(lower)
    if lexicon or not _CASED_TRIGGERS.isdisjoint(tokens):
        return True, lexicon
    if any(a == b for a, b in pairwise(lower)):
        return True, False
    if len(tokens) >= _RUN_ON_WORDS and _RUN_ON_MARKER.search(text):
        return True, False
    return _CHAR_TRIGGER.search(text) is not None, False


#: Texts longer than this are not cached: the cache holds key and value, so a count bound
#: alone lets a worker fed long turns hold 2 × 4096 × their length (review R14 R3); a long
#: turn is rarely read twice, a short one is (its session context).
_CACHE_MAX_CHARS = 2048


def canonical(text: str) -> str:
    """`text` in canonical prose for the rule families (see the module doc); the same
    string when nothing in it is a register trigger. Cached up to `_CACHE_MAX_CHARS`: every
    turn reads the turns of its session context again (`rules._Context`), as
    `rules._scan_once` is cached."""
    if len(text) > _CACHE_MAX_CHARS:
        return _canonical(text)
    return _canonical_cached(text)


def _canonical(text: str) -> str:
    if not _triggered(text)[0]:
        return text
    parts = re.split(r"(```.*?(?:```|\Z))", text, flags=re.DOTALL)
    return "".join(p if p.startswith("```") else _prose(p) for p in parts)


_canonical_cached = lru_cache(maxsize=4096)(_canonical)

#: Spans no rewrite may touch, beside fenced code: inline code, URLs and e-mail addresses
#: (a query string is not shorthand: "?u=1&n=2"). Each pattern starts where its span can
#: start (not inside a run of its own characters), so the scan is linear.
_PROTECTED = re.compile(
    r"`[^`\n]+`"
    r"|\b(?:https?://|www\.)(?:[^\s<>\"`()]|\([^\s<>\"`()]*\))*"
    r"|(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
)
#: A protected span stands in the text as one private-use character (plane 15) while the
#: rewrites run: no rule matches it, and it is not a word character.
_URL_END = ".,;:!?'’"
_SLOT_BASE = 0xF0000
_SLOT_LIMIT = 0xFFFFE - _SLOT_BASE
_SLOT = re.compile("[\U000f0000-\U000ffffd]")


def _protect(text: str) -> tuple[str, list[str]]:
    """`text` with its protected spans replaced by slot characters, and the spans. A text
    that has slot characters of its own (or too many spans) is not protected at all."""
    if _SLOT.search(text):
        return text, []
    spans: list[str] = []

    def hold(m: re.Match[str]) -> str:
        span = m.group(0).rstrip(_URL_END)  # "see x.io/a." ends a sentence, not the URL
        if not span or len(spans) >= _SLOT_LIMIT:
            return m.group(0)
        spans.append(span)
        return chr(_SLOT_BASE + len(spans) - 1) + m.group(0)[len(span) :]

    return _PROTECTED.sub(hold, text), spans


def _restore(text: str, spans: list[str]) -> str:
    if not spans:
        return text
    return _SLOT.sub(lambda m: spans[ord(m.group(0)) - _SLOT_BASE], text)


def _prose(text: str) -> str:
    """The rewrites, in order; the part's outer whitespace is kept (it meets a fence)."""
    if not text.strip():
        return text
    lead = text[: len(text) - len(text.lstrip())]
    trail = text[len(text.rstrip()) :]
    text, spans = _protect(text)
    if has_markup(text):
        text = prose_of_markdown(text)
    text = _EMOJI.sub(_boundary, text)
    text = _LAUGH.sub(_boundary, text)
    text = _FILLER.sub("", text)
    text = _CUT_LETTER.sub("", text)
    text = _STUTTER.sub(_unstutter, text)
    text = _STRETCHED.sub(_unstretch, text)
    text = _FAMILY_WORD.sub(lambda m: m.group(1) + _FAMILY[m.group(2)], text)
    if _triggered(text)[1]:
        text = _WORD.sub(_expand, text)
    text = _LIKE_FILLER.sub(" ", text)
    text = _COMMA_FILLER.sub("", text)
    text = _WONT.sub("won't", text)
    text = _R_ARE.sub(r"\1are", text)
    text = _SHORT_TIME.sub(_clock, text)
    text = _AT_SIGN.sub("at", text)
    text = _LONE_I.sub("I", text)
    text = "\n".join(_split_run_on(line) for line in text.split("\n"))
    text = _SPACE_BEFORE_PUNCT.sub("", text)
    text = _DOUBLE_PUNCT.sub(r"\1", text)
    text = _LEADING_PUNCT.sub("", text)
    core = _restore(_SPACES.sub(" ", text).strip(), spans)
    # a part that was only laughter or fillers ("lol", "um") is empty, whatever it was
    return f"{lead}{core}{trail}" if core else lead + trail if lead != trail else lead


def _clock(m: re.Match[str]) -> str:
    letter = m.group(4) or m.group(5)
    return f"{m.group(1)}{m.group(2)}{m.group(3) or ''}{letter.lower()}m"


_NON_SPACE = re.compile(r"\S")


def _boundary(m: re.Match[str]) -> str:
    """An emoji or a laugh between words ends a sentence; at the end it is dropped. Looks
    only at the gap on either side (not at the whole text), so a turn of many laughs stays
    linear."""
    text, start = m.string, m.start()
    if _NON_SPACE.search(text, m.end()) is None:
        return " "
    i = start - 1
    while i >= 0 and text[i].isspace():
        i -= 1
    if i < 0 or text[i] in ".!?,;:\n":
        return " "
    return ". "


def _unstutter(m: re.Match[str]) -> str:
    word = m.group(1)
    if word.lower() in _KEEP_DOUBLED:
        return m.group(0)
    repeats = re.findall(r"[^ \t,]+", m.group(0))
    if word != "I" and all(w[:1].isupper() for w in repeats):
        return m.group(0)  # "Bora Bora", "Walla Walla": a name, not a stutter
    return word


def _unstretch(m: re.Match[str]) -> str:
    word = m.group(0)
    if _TRIPLE.search(word) is None:
        return word
    if (word.isupper() and len(word) <= 4) or word.lower() in {"www", "iii", "xxx", "zzz"}:
        return word  # "III", "XXX": not stretched speech
    doubled = re.sub(r"([a-z])\1{2,}", r"\1\1", word, flags=re.I)
    single = re.sub(r"([a-z])\1+", r"\1", doubled, flags=re.I)
    return single if single.lower() in _SINGLE_LETTER_WORDS else doubled


def _expand(m: re.Match[str]) -> str:
    token, stop = m.group(1), m.group(2)
    key = token.lower()
    replacement = _SHORTHAND[key]
    if key in _LOWER_ONLY and token != key and not _sentence_cased(key, token, m):
        return m.group(0)
    context = _CONTEXT_ONLY.get(key)
    if context is not None:
        before, after = context
        head = m.string[max(0, m.start() - 24) : m.start()]
        tail = m.string[m.end() - len(stop) : m.end() - len(stop) + 2]
        if not re.search(before, head, re.I) or (after and not re.match(after, tail)):
            return m.group(0)
    return replacement + stop if replacement else stop


def _sentence_cased(key: str, token: str, m: re.Match[str]) -> bool:
    """ "Im"/"Ive" opening a sentence (only spaces since the text's start or a sentence end)."""
    if key not in _SENTENCE_CASE or token != key.capitalize():
        return False
    head = m.string[max(0, m.start() - 24) : m.start()].rstrip(" \t")
    return not head or head[-1] in ".!?\n"


def _split_run_on(line: str) -> str:
    """Sentence ends before the discourse markers of a long unpunctuated run."""
    if len(line.split()) < _RUN_ON_WORDS:
        return line
    pieces = re.split(r"([.!?;])", line)
    out: list[str] = []
    for piece in pieces:
        if len(piece.split()) >= _RUN_ON_WORDS and not _PUNCTUATED.search(piece):
            piece = _RUN_ON_MARKER.sub(". ", piece)
        out.append(piece)
    return "".join(out)
