"""Query intent detection: keyword and date cues (paper Appendix K), explicit override wins."""

from __future__ import annotations

import re

from schemas.categories import Intent

# Order matters: the first family that matches decides. Cancelled plans and change
# questions are rarer and more specific than upcoming/past cues, so they go first.
_CUES: tuple[tuple[Intent, re.Pattern[str]], ...] = (
    (
        Intent.CANCELLED,
        re.compile(
            r"\b(cancel(?:l?ed|l?ing)?|called off|call(?:ed)? it off|scrap(?:ped)?|"
            r"fell through|abandon(?:ed)?|gave up on|dropped|no longer (?:planning|going)|"
            # "what did I give up (on)?", "what have I given up?": a giving-up told as done
            # (A.9 q_chg, what the user retracted), the verb ending the question or taking
            # "on" — not a wish, a modal or a willingness ("Should I give up?", "which foods
            # am I not willing to give up?", review r18 H1).
            r"(?:(?:did|have|has|had|'ve)\s+(?:[\w'-]+\s+){0,2}(?:give|given)"
            r"|gave) up(?: on)?(?=\s*(?:[?.!]|$))|"
            r"plans? (?:that|which) (?:died|fell)|retract\w*)\b",
            re.I,
        ),
    ),
    (
        Intent.HISTORICAL,
        re.compile(
            # "use to" only after a past auxiliary ("what did she use to drink?"): "what does
            # he use to get around now?" asks the present (round 20).
            r"\b(used to|(?:did|didn't|did not)\b[^?.!]*\buse to|"
            r"(?:was|were|did|had)\b[^?.!]*\bbefore\b(?!\s+(?:the\s+)?\d)|"
            r"before (?:switching|moving|changing|i (?:moved|switched|changed))|"
            r"previous(?:ly)?|former(?:ly)?|originally|at first|"
            r"(?:change|switch|move)[ds]? from|(?:switched|moved) from|"
            # "Which company did she leave?": what one left or quit is a former value.
            r"(?:did|has|have|had)\s+(?:\w+\s+){1,2}?(?:leave|quit)\b(?!\s+(?:for|to|behind)\b)|"
            r"earlier (?:preference|job|city|address)|old (?:job|address|city|apartment|place)|"
            r"what was my|what did i (?:use|prefer|like) (?:before|to)|"
            r"history of|how has .* changed|in the past)\b",
            re.I,
        ),
    ),
    (
        Intent.UPCOMING,
        re.compile(
            r"\b(upcoming|coming up|next (?:week|month|appointment|meeting|flight|trip)|"
            r"tomorrow|tonight|later today|this (?:week|weekend|coming)|scheduled|"
            # "am I going out with …" asks who the partner is (to go out with: to date)
            r"due (?:soon|date)|deadline|will i|am i going(?! out with)|do i have (?:any|to)|"
            r"what's next|soon|lined up|ahead|"
            # Anticipation asks what is still to come (A.7.4's q_up): "what is she looking
            # forward to?", "anything to look forward to?" (round 24, heldout9's class).
            r"look(?:ing|s)? forward to|"
            r"on (?:my|your|his|her|their|the|\w+'s) (?:calendar|schedule|agenda|diary))\b",
            re.I,
        ),
    ),
    (
        # A question asked in the past tense asks what happened: its auxiliary or copula is
        # past ("when did …", "was the inspection …", "what were …", "had she …"). A change
        # question in the past tense ("what was X before …") matched HISTORICAL above.
        Intent.PAST,
        re.compile(
            r"\b(last (?:week|month|year|time)|yesterday|ago|already (?:happened|done|passed)|"
            r"(?:has|have|hasn't|haven't)\b[^?.!]*\bever|been to|"
            # "How many tournaments has Nate won?" asks an experience; "how many hives have I
            # got?" asks what is held now (have got: possession, present).
            r"how (?:many (?:\w+ ){1,3}|often )(?:has|have)\s+\w+(?!\s+got\b)|"
            r"did|didn't|was|wasn't|were|weren't|had|hadn't|what happened|passed|went to)\b",
            re.I,
        ),
    ),
    (
        # "When is her next MOT?", "which boat am I catching next?": the next occurrence is
        # ahead of the asker (A.7.4's q_up). Last, so that a past question's "next" ("what did
        # she do next?") stays past; "next to", "next door", "next of kin" are no time.
        Intent.UPCOMING,
        re.compile(r"\bnext\b(?!\s+(?:to|door|of\s+kin)\b)", re.I),
    ),
)


def detect_intent(query: str, override: Intent | str | None = None) -> Intent:
    """The intent that selects M_q; `override` ("auto"/None = detect) wins when given."""
    if override is not None and override != "auto":
        return Intent(override)
    for intent, pattern in _CUES:
        if pattern.search(query):
            return intent
    return Intent.CURRENT
