"""What must not become ordinary memory, and the mood that modulates what does.

* Instruction-like content is quarantined at ingestion (paper B.5, prompt injection via
  memory): kept for audit, never served.
* World knowledge is dropped (paper D.5: 86 % of extracted edges were world knowledge until
  a detection filter cut it to 1.4 %).
* Questions state no fact ("do you know where I live?").
* Emotional state is not a category but a loading on the fact it accompanies (paper B.6).
"""

from __future__ import annotations

import re

from workers.extraction.clauses import has_first_person
from workers.extraction.lexicon import EMOTIONS, INTENSIFIERS

_I = re.IGNORECASE
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+|my\s+)?"
    r"(?:previous|prior|above|earlier|preceding|original|system|safety)?\s*(?:instructions?"
    r"|prompts?|rules|guidelines|directives|context|programming|guardrails)"
    r"|\bsystem\s+prompt\b|\b(?:developer|god|jailbreak|dan)\s+mode\b|\bjailbreak"
    r"|\byou\s+(?:must|should|will|shall)\s+(?:always|never|now|from\s+now\s+on)\b"
    r"|\b(?:from\s+now\s+on|henceforth|going\s+forward),?\s+(?:you|the\s+assistant)\b"
    r"|\byou\s+are\s+now\s+(?:a|an|in|my|the|no\s+longer)\b|\bnew\s+instructions?\s*:"
    r"|\b(?:act|behave|respond)\s+as\s+(?:if\s+you\s+(?:are|were)|an?\s+(?:unfiltered|"
    r"uncensored|unrestricted))|\bpretend\s+(?:to\s+be|you\s+are|you're)\b"
    r"|\byou\s+(?:should\s+|must\s+|will\s+)?(?:always|never)\s+(?:respond|answer|reply|say"
    r"|tell|mention|reveal|recommend|use|write|talk)\b"
    r"|^\s*(?:always|never)\s+(?:respond|answer|reply|mention|reveal|recommend)\b"
    r"|\breveal\s+(?:your|the)\s+(?:system|hidden|secret|instructions|prompt)"
    r"|\bremember\s+(?:that\s+)?you\s+(?:must|should|are\s+required)"
    r"|<\|?(?:im_start|im_end|system|endoftext)\|?>|\[/?(?:INST|SYS)\]|###\s*(?:system|instruction)"
    r"|\bassistant\s*:\s|\bsystem\s*:\s",
    _I,
)
_QUESTION_START = re.compile(
    r"^(?:do|does|did|can|could|would|will|is|are|was|were|what|what's|whats|where|where's"
    r"|when|why|how|who|who's|which|should|shall|any\s+idea|remind\s+me|tell\s+me"
    r"|guess\s+where)\b"
    r"(?!\s+and\s+(?:i|me)\b)",
    _I,
)
_NOT_QUESTION = re.compile(r"^(?:will|may|june|april|august|grace|hope|joy|bill)\s+and\b", _I)
_WORLD = re.compile(
    r"\b(?:is|are|was)\s+the\s+(?:capital|largest|smallest|tallest|longest|biggest|oldest"
    r"|deepest|highest|fastest|most\s+populous|first|official\s+language)\b"
    r"|\bboils\s+at\b|\bfreezes\s+at\b|\bmelts\s+at\b|\bspeed\s+of\s+(?:light|sound)\b"
    r"|\b(?:orbits|revolves\s+around)\s+the\b|\bchemical\s+(?:symbol|formula)\b"
    r"|\b(?:was|were)\s+(?:founded|invented|discovered|built|written|painted|composed|signed"
    r"|established)\s+(?:in|by)\b|\bpopulation\s+of\b|\bis\s+(?:located|situated)\s+in\b"
    r"|\b(?:is|are)\s+(?:a|an)\s+(?:planet|country|continent|element|mammal|reptile|language"
    r"|programming\s+language|species|chemical|gas|metal|prime\s+number|star|constellation)\b"
    r"|\bthere\s+are\s+\d+\s+\w+\s+in\s+(?:a|an|the)\b|\b(?:consists?|made)\s+of\b"
    r"|\b(?:died|was\s+born)\s+in\s+\d{3,4}\b|\bin\s+\d{3,4}\s*(?:bc|ad|bce|ce)\b"
    r"|\bdegrees\s+(?:celsius|fahrenheit)\b|\b(?:according\s+to|studies\s+show|scientists)\b",
    _I,
)
_EMOTION_RE = re.compile(
    r"\b(?P<int>(?:"
    + "|".join(sorted(INTENSIFIERS))
    + r")\s+)?(?P<word>"
    + "|".join(sorted((re.escape(k) for k in EMOTIONS), key=len, reverse=True))
    + r")\b",
    _I,
)


def is_instruction(sentence: str) -> bool:
    """Instruction-like content addressed to the assistant (paper B.5)."""
    return _INSTRUCTION.search(sentence) is not None


def is_question(sentence: str) -> bool:
    """A question asks; it does not state a fact about the user."""
    stripped = sentence.strip()
    if stripped.endswith("?"):
        return True
    return _QUESTION_START.match(stripped) is not None and not _NOT_QUESTION.match(stripped)


#: A question tagged onto a statement: "my rent is $950 a month, is that a lot?"
_TAG_QUESTION = re.compile(
    r"[,;:]\s*(?:so\s+|but\s+|and\s+)?(?:how|what|what's|which|is\s+(?:that|it|this|there)"
    r"|are\s+(?:they|those|these|there)|does|do|did|can|could|should|would|will|any|anything"
    r"|where|when|why|who|right|isn't|aren't|don't|ok|okay)\b[^,;:]*\?\s*$",
    _I,
)


def statement_part(sentence: str) -> str | None:
    """What a sentence states: all of it, the statement before a tagged-on question, or
    None for a question ("do you know where I live?" states nothing)."""
    stripped = sentence.strip()
    if not stripped.endswith("?"):
        return None if is_question(stripped) else sentence
    if _QUESTION_START.match(stripped) and not _NOT_QUESTION.match(stripped):
        return None
    m = _TAG_QUESTION.search(stripped)
    return stripped[: m.start()].strip() if m and m.start() > 0 else None


def is_world_knowledge(sentence: str) -> bool:
    """General knowledge with no first-person anchor ("Paris is the capital of France")."""
    return not has_first_person(sentence) and _WORLD.search(sentence) is not None


def emotional_loading(sentence: str) -> float:
    """0 when no emotion is expressed, else within [0.3, 0.9] (paper B.6).

    The base comes from the strongest emotion word; intensifiers ("so stressed") and
    exclamation add to it. The scorer decays it fast (policy.emotion).
    """
    best = 0.0
    for m in _EMOTION_RE.finditer(sentence):
        base = EMOTIONS[m["word"].lower()]
        if m["int"]:
            base += 0.15
        best = max(best, base)
    if best == 0.0:
        return 0.0
    if "!" in sentence:
        best += 0.1 if sentence.count("!") > 1 else 0.05
    if re.search(r"\b[A-Z]{4,}\b", sentence):  # shouting
        best += 0.05
    return round(min(0.9, max(0.3, best)), 2)
