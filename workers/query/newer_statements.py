"""A newer on-topic statement leads a question about the present (issue 11).

The other window rules act only where something ties an old statement to a new one: a slot
key (`pressed_values.py`, the lifecycle's supersession), one turn (`outdated_siblings.py`),
or a single-valued attribute the trained probe recognises (`latest_value.py`). The stale
answers left on the validation tellings are mostly where nothing does: a taste or habit
replaced with both tellings fact-less, an old value told without a fact and the new one
keyed, a newer value keyed under another slot, a count restated fact-less (docs/extraction.md,
"A newer on-topic statement at query time"). Tying them at ingest by vectors was measured
four times and rejected — a false association destroys data. At query time a demotion from
the top 5 to ranks 6–10 destroys nothing and keeps the pass (gold in the top 10).

The paper orders co-retrieved values at query time: for "What does the user currently
prefer?" the newer of two statements leads (A.7.3, Eq. 37–39: q_cur: e2 ≻ e1), the choice
among candidate values is made when the question is asked (§3.5, the distillation step), and
a soft update keeps both, not equal (Appendix F). The deterministic stand-in, reading no
wording of the statements but the pressing turn's marks of the past:

* the question is a current-state one (intent CURRENT) and, with `explicit_now`, says so:
  one of the closed family of present-time adverbials (`NOW`: "now", "currently", "these
  days", "still", "anymore" …). Without that gate the rule acted on half of LoCoMo dev's
  questions ("What is Caroline's identity?" is current too) and cost recall@5 there; a
  question that contrasts the present with before is where the asker expects a change —
  or (`turn_says_now`, issue-11aa) the *newer turn* says so: a present-time word that
  contrasts with before (`MARKED_NOW`: not "still", not "… months now", not "right now",
  not "from now on") in a clause that is not a question. Then the user marked the change
  themselves, and the σ condition below is waived: the newer wording is usually the weaker
  match for a question asked in the old value's words (docs/extraction.md, "A newer turn
  that says it holds now") — or (`unmarked_single_value`, issue-11ag) neither says so but
  the question asks for one value, not a set (`asks_for_many`: for "what books has she
  read?" an older statement is one more item, AV5), the σ condition kept;
* a candidate among the first `shown` (`latest_value.demote_to`, the top 5) has a later
  raw turn among the first `window` — the user's own newer words, kept verbatim
  (Appendix AA) — that is about the same thing: their stored vectors' cosine at least
  `min_cosine`, and it matches the question at least as well (σ not below the candidate's
  by more than `sigma_margin`);
* that turn was told at least `min_gap_hours` after the candidate was last told as far as
  the question can know (`pressed_values.mentioned_as_of`): in a later session, not as the
  next line of the same conversation (Appendix G's session clock; measured: a reply minutes
  later in the same LoCoMo session pressed the evidence it answered); a statement told
  after as_of never counts (the store's as_of filter excludes it, and it is checked here);
* the turn is not the candidate's own (the raw turn a fact was drawn from restates it);
* the turn does not speak of how things were ("used to", "back when", "when I was a kid")
  without also speaking of the present: "I still think about the piano teacher who used to
  shout at me when I was a kid" says nothing of whether the user plays now.

`min_cosine` was chosen on all-MiniLM-L6-v2's cosines; under another embedder "about the same
thing" is unmeasured, so the rule runs only with the model named by `embedder_model_id`
(`window_rules.WindowRules`), as the probes run only on the vectors they were trained on.

Such a candidate ranks from `demote_to` on, inside the window (`latest_value.reorder`), with
its reason in `why`; the newer turn keeps its place. Only a raw turn presses: gold metadata
(the gold track, the paper cases' gold tellings) has none, so there the rule never acts. A
pure function of the candidate set, the question and as_of: stored vectors, σ, ingest times
and lifecycle annotations decide; the newest presser is named, ties broken by edge id.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

import numpy as np

from schemas.categories import Intent
from schemas.policy import NewerStatementsPolicy
from workers.extraction.dates import has_date_cue, is_deictic
from workers.extraction.own_withdrawal import hedged
from workers.extraction.patterns_money import AMOUNT
from workers.extraction.rules import USED_TO
from workers.query import ended_values, low_cosine_versions, small_tier
from workers.query.candidates import MergedCandidate
from workers.query.change_said import names_other, says_changed
from workers.query.present_habit import asks_attitude, asks_others_habit, asks_present_habit
from workers.query.pressed_values import mentioned_as_of
from workers.text.bm25 import tokenize

#: Present-time adverbials: a question carrying one asks about the present as opposed to
#: before (a closed grammatical family, like the tense cues of `workers/query/intent.py`).
#: "still" is the adverb only — not before a verb of memory or thought ("do I still remember
#: my first dog?" asks about the past) nor after an article ("a still camera"); "any more"
#: only where it ends a clause ("do I run anymore?", not "any more siblings?", an accumulate
#: question); "current" only before a noun of state ("my current job", not "current events"
#: or "a current account").
NOW = re.compile(
    r"\b(?:now|nowadays|currently|these days|at the moment|at present|right now)\b"
    r"|(?<!\ba )(?<!\bthe )\bstill\b(?!\s+(?:remember|recall|think|thought|miss)\w*)"
    r"|\bany ?more\b(?=\s*(?:[?.!,;:]|$))"
    r"|\bcurrent\s+(?:job|role|position|title|employer|company|workplace|city|town|country|"
    r"home|address|flat|apartment|place|partner|boyfriend|girlfriend|wife|husband|"
    r"relationship|car|phone|hobby|hobbies|diet|routine|status|situation|school|team|"
    r"salary|rent|favou?rites?)\b",
    re.I,
)
#: A turn about how things were: "used to", "back when" (the extractor's habitual past,
#: `rules.USED_TO`) or a childhood ("when I was a kid"). Such a turn presses nothing unless
#: it also speaks of the present ("I used to read thrillers, now it's all sci-fi").
_CHILDHOOD = re.compile(
    r"\b(?:when|since|back when)\s+(?:i|we)\s+(?:was|were)\s+(?:a\s+|little\s+)?"
    r"(?:kids?|little|young|younger|small|children|child|teens?|teenagers?|boys?|girls?)\b",
    re.I,
)


#: A question that asks for a set rather than one value (AV5 broad aggregation; A.7.2: many
#: values of one kind accumulate): "all", "every", "list", "names", or a plural noun after
#: "what"/"which" ("What books has she read?", "which kinds of events …"). For such a question
#: an older statement is one more item, not an outdated value, so no unmarked pressing.
_VERB = r"(?:is|was|are|were|do|does|did|has|have|had|will|would|can|could)\b"
_NOT_NOUN = (
    r"(?!(?:is|was|does|has|goes|makes|means|seems|gets|happens|keeps|helps|brings|his|this"
    r"|its|hers|ours|yours|theirs)\b)"
)
#: "each year", "every morning": a frequency, not a set (round 20: "how much does she pay
#: for insurance each year?" asks one amount).
_PERIOD = (
    r"(?!\s+(?:day|night|morning|afternoon|evening|week|weekend|month|year|season|time|hour"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b)"
)
MANY = re.compile(
    rf"\b(?:all|list|names)\b|\b(?:every|each)\b{_PERIOD}"
    r"|\b(?:what|which)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?"
    rf"(?:(?!{_VERB})[\w+-]+\s+)?{_NOT_NOUN}[a-z]+[^su\W]s\b",
    re.I,
)


def asks_for_many(question: str) -> bool:
    """Whether the question asks for a set of values (`MANY`), not one."""
    return MANY.search(question) is not None


#: A statement's own words placing it in the present *against before* (`turn_says_now`): the
#: question family without the words that affirm continuity — "still" ("I'm still at the
#: shelter" says the old value holds), "now" closing a duration ("four months now") or a
#: moment ("right now", "just now", "by now", "until now") — and without "current" (a noun's
#: modifier, not a contrast). Measured on LoCoMo dev (development): with the whole question
#: family, later turns saying "still …" or "… years now" pressed evidence out of the top 5.
_NOT_AFTER = r"(?<!\bjust )(?<!\bright )(?<!\bby )(?<!\buntil )(?<!\btill )(?<!\bup to )"
MARKED_NOW = re.compile(
    r"\b(?:nowadays|these days|no longer|currently|at the moment|at present)\b"
    r"|\bany ?more\b(?=\s*(?:[?.!,;:]|$))"
    rf"|{_NOT_AFTER}\bnow\b(?!\s+on\b)",
    re.I,
)
#: "now" closing a duration of any unit or wording — "two hours now", "for decades now",
#: "3 yrs now", "a year and a half now", "for some time now", "it's been ages now": continuity.
#: The unit needs a quantity or "for"/"been" before it: "lo-fi beats all day now" is a change.
_QUANTITY = (
    r"\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty"
    r"|thirty|forty|fifty|few|several|many|some|couple|half|for|been"
)
_DURATION_NOW = re.compile(
    rf"\b(?:{_QUANTITY}) (?:[a-z]+ ){{0,2}}?"
    r"(?:seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|months?|mos?|years?|yrs?"
    r"|decades?|centur(?:y|ies)|semesters?|terms?|seasons?|ages|while|time)"
    r"(?: (?:or so|or two|and a half|or more|or longer))? now\b",
    re.I,
)
#: Runs of spaces and tabs read as one ("years  now"); line breaks still end a clause.
_SPACES = re.compile(r"[^\S\n]+")
#: A clause: what a question asks ("by the way, what are you reading currently?") or a
#: resolution ("from now on I'll …", excluded above) states no present value; a statement
#: followed by a question in one sentence ("I knit now, any tips?") still states it.
_CLAUSE = re.compile(r"[^.!?\n,;:()—–]+[.!?]*")


#: An amount of money (the extractor's money family) and the number and currency in it.
_AMOUNT = re.compile(AMOUNT, re.I)
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
#: The period after an amount: "a month", "per year", "/wk", "for the year", "monthly".
_PERIOD_AFTER = re.compile(
    r"\s*(?:(?:a|an|per|each|every|for the|/)\s*(year|yr|annum|month|mo|week|wk|day|night)\b"
    r"|(yearly|annually|monthly|weekly|daily|nightly)\b)",
    re.I,
)
#: A period adjective before the amount in its clause ("your annual premium is £612", "the
#: monthly rent comes to €900"): the noun it qualifies is what the amount is the price of, a
#: few words on (`_PERIOD_BEFORE_WORDS`), no sentence or clause stop between.
_PERIOD_BEFORE = re.compile(r"\b(yearly|annual|annually|monthly|weekly|daily|nightly)\b", re.I)
_PERIOD_BEFORE_WORDS = 5
_CLAUSE_STOP = re.compile(r"[.!?;]|\b(?:but|and then)\b", re.I)
_PERIOD_OF = {
    "yr": "year", "annum": "year", "yearly": "year", "annually": "year", "mo": "month",
    "monthly": "month", "wk": "week", "weekly": "week", "daily": "day", "nightly": "night",
    "annual": "year",
}  # fmt: skip
#: A currency's words as its sign, so that "$1,200" and "1,100 dollars" compare.
_SYMBOL_OF = {
    **dict.fromkeys(("dollars", "bucks", "usd", "us$"), "$"),
    **dict.fromkeys(("pounds", "quid", "gbp"), "£"),
    **dict.fromkeys(("euro", "euros", "eur"), "€"),
    **dict.fromkeys(("yen",), "¥"),
}
_CURRENCY_MARK = re.compile(r"\d[\d,.]*\s*(?:k|m|mil|million|thousand|grand)?\b|\s+", re.I)


@dataclass(frozen=True, slots=True)
class Newer:
    """A candidate about which `by`, a raw turn told later, says something newer."""

    by: str
    cosine: float
    #: It pressed because its own words place it in the present (`turn_says_now`).
    marked: bool = False
    #: It pressed because it restates the candidate's amount with another number
    #: (`restated_amount`).
    restated: bool = False
    #: A fact that follows the raw turn it was drawn from, which `by` leads (`follow`).
    drawn_from: str | None = None
    #: It pressed because it is shown itself, close to the candidate, for a question that asks
    #: which value holds now (`shown_newer_leads`).
    shown: bool = False
    #: `by` ranked past the window and is nearest this candidate of the first five
    #: (`pressers_from`).
    deeper: bool = False
    #: It pressed below `min_cosine`: it says the value changed and the question ties the
    #: two (`low_cosine_versions.tied`, `marked_min_cosine`).
    tied_by_question: bool = False
    #: It pressed because it says something this candidate names is over
    #: (`ended_values.says_ended`, `ended_value_marks`).
    ended: bool = False
    #: It pressed whatever its σ because both are among the few candidates of a small first
    #: tier (`small_tier.tied`, `small_tier_max`).
    few: bool = False


def asks_now(question: str) -> bool:
    """Whether the question's words place it in the present, against before."""
    return NOW.search(question) is not None


#: The words of `NOW` that ask whether an earlier state goes on rather than which value holds:
#: "am I still dairy-free?", "do I run anymore?" name the earlier state, so the statement of it
#: that matches the question best is what is asked about, not an outdated version.
_CONTINUITY = re.compile(r"still|any ?more", re.I)


def names_its_moment(question: str) -> bool:
    """Whether the question names the moment it asks about by the calendar ("… in August
    2023?", "on 7 November"): then it asks what held then, not which value holds now;
    "today" or "this week" is the asker's now (`dates.is_deictic`)."""
    return has_date_cue(question) and not is_deictic(question)


def asks_current_value(question: str, present_habit: bool = False, others: bool = False) -> bool:
    """Whether the question asks which value holds now ("now", "currently", "these days", "at
    the moment", "my current job" …): `NOW` without its continuity words (`_CONTINUITY`), in a
    question that does not name its own moment — "what is she currently playing, on 7 November
    2022?" asks what held on that day, and a statement told after it is no newer version of
    that (a calendar date; "today" or "this week" is the asker's now). `present_habit`: a
    do-support question in the simple present ("what car does Sam drive?") asks it too,
    without a present-time word (`present_habit.asks_present_habit`; a continuity word still
    leaves it out: "does he still run?" names the earlier state)."""
    if names_its_moment(question):
        return False
    if any(_CONTINUITY.fullmatch(m.group(0)) is None for m in NOW.finditer(question)):
        return True
    habit = asks_others_habit(question) if others else asks_present_habit(question)
    return present_habit and habit and not _CONTINUITY.search(question)


def says_now(text: str) -> bool:
    """Whether a turn places what it states in the present as against before: a `MARKED_NOW`
    word in a clause that is not a question. A sentence-opening "Now," is a mark too: in chat
    it is mostly temporal ("… got me out of my 9-5 as a banker. Now, I'm aiming to …", LoCoMo
    dev's only one), rarely a change of topic ("Now, about the trip …")."""
    text = _DURATION_NOW.sub(" ", _SPACES.sub(" ", text))
    return any(
        MARKED_NOW.search(clause) is not None and not clause.rstrip().endswith("?")
        for clause in _CLAUSE.findall(text)
    )


def about_before(text: str) -> bool:
    """Whether a turn speaks of how things were and not of the present (`_presses`)."""
    return (
        USED_TO.search(text) is not None or _CHILDHOOD.search(text) is not None
    ) and not asks_now(text)


def _marked(newer: MergedCandidate, rule: NewerStatementsPolicy) -> bool:
    """The user's own contrast with before ("… now", "these days") marks a newer raw turn as
    the current value, whatever the question says and however well it matches it
    (issue-11aa) — and, with `change_said_marks`, the change said itself ("switched to …",
    "it's changed", "Correction: …"; `change_said.says_changed`, round 25)."""
    edge = newer.record.edge
    return (
        rule.turn_says_now
        and edge.episodic
        and (says_now(edge.text) or (rule.change_said_marks and says_changed(edge.text)))
    )


def _names_other(
    newer: MergedCandidate, older: MergedCandidate, rule: NewerStatementsPolicy
) -> bool:
    """A turn marked by its said change alone (not by a present-time word) that names the value
    it replaced ("switched from X to Y") marks nothing for an older statement that never says
    X (`change_said.names_other`; round 25, the generator's test half: a diet's change pressed
    a food allergy)."""
    text = newer.record.edge.text
    return (
        rule.change_said_marks and not says_now(text) and names_other(text, older.record.edge.text)
    )


@lru_cache(maxsize=256)
def _amounts(text: str) -> dict[tuple[str, str], frozenset[float]]:
    """(currency, period) → the numbers of the recurring amounts a text states ("£327.40 for
    the year" → {("£", "year"): {327.4}}); an amount without a period is left out. Cached:
    `restates_amount` asks it of each candidate once per pair of the window."""
    out: dict[tuple[str, str], set[float]] = {}
    for found in _AMOUNT.finditer(text):
        number = _NUMBER.search(found.group(0))
        period = _PERIOD_AFTER.match(text, found.end())
        unit = (
            next(u for u in period.groups() if u is not None).lower()
            if period is not None
            else _period_before(text, found.start())
        )
        if number is None or unit is None:
            continue
        currency = _CURRENCY_MARK.sub("", found.group(0)).strip().lower() or "?"
        currency = _SYMBOL_OF.get(currency, currency)
        key = (currency, _PERIOD_OF.get(unit, unit))
        out.setdefault(key, set()).add(float(number.group(0).replace(",", "")))
    return {key: frozenset(numbers) for key, numbers in out.items()}


def _period_before(text: str, start: int) -> str | None:
    """The period adjective qualifying an amount from before it ("annual premium is £612"):
    within `_PERIOD_BEFORE_WORDS` words of it, in its clause; None without one (round 23)."""
    before = text[:start]
    stops = [m.end() for m in _CLAUSE_STOP.finditer(before)]
    clause = before[stops[-1] if stops else 0 :].split()[-_PERIOD_BEFORE_WORDS:]
    found = _PERIOD_BEFORE.search(" ".join(clause))
    return found.group(1).lower() if found is not None else None


def restates_amount(old_text: str, new_text: str) -> bool:
    """Whether the newer text states a recurring amount in the currency and per the period of
    one the older states, with another number: the price, premium, rent or pay restated
    (A.7.1 — the newer number replaces the older; a remark without a number keeps it). A
    one-off amount ("bought shoes for ₺1,440") restates no price: the period is what ties
    two amounts to one thing (generator train half: one-off purchases pressed a gym fee)."""
    old = _amounts(old_text)
    return any(
        key in old and not numbers <= old[key] for key, numbers in _amounts(new_text).items()
    )


#: A question asking for a quantity: "how much has she saved?", "how many cows …?", "what is
#: the total …?" (the grammatical family of a number asked for, A.7.1 / AV8).
ASKS_QUANTITY = re.compile(
    r"\bhow (?:much|many)\b|\bwhat(?:'s| is| are)? (?:the |my |your |\w+'s )?"
    r"(?:total|number|count|balance|tally|figure)\b",
    re.I,
)
#: A bare number: thousands with commas ("2,300") or digits with a decimal part; not a clock
#: time ("7:45", "6pm"), a date or an ordinal ("15th", "10/02"), a year (1900-2099) or a
#: number inside a word or code ("A40", "v2").
_BARE = re.compile(r"(?<![\w.,:/£$€¥₹-])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w:/%]|[.,]\d)")
_YEAR = re.compile(r"(?:19|20)\d\d")
#: Words too common to tie two statements that BM25 keeps (a self-correction's fillers),
#: unchanged by `bm25.tokenize`'s stemming.
_FUNCTION = frozenset({"still", "sorry", "wait", "hang", "know"})


def _counts(text: str) -> frozenset[float]:
    """The bare numbers of a text (`_BARE`), years left out."""
    return frozenset(
        float(m.group(1).replace(",", ""))
        for m in _BARE.finditer(text)
        if not _YEAR.fullmatch(m.group(1))
    )


@lru_cache(maxsize=4096)
def _content_words(text: str) -> frozenset[str]:
    """The words that tie two statements: BM25's own tokens (stopwords out, stemmed), without
    numbers (the numbers are what differs) and without words under four letters."""
    return frozenset(
        t for t in tokenize(text) if t.isalpha() and len(t) >= 4 and t not in _FUNCTION
    )


def restates_count(old_text: str, new_text: str) -> bool:
    """Whether the newer text restates a bare number of the older with another one about the
    same thing: both state numbers, the newer one the older does not, and the two share a
    content word (a running total, "the trip fund is at 2,300" → "trip fund update: 4,700";
    the caller asks a quantity question and a cosine of the two)."""
    old, new = _counts(old_text), _counts(new_text)
    return (
        bool(old)
        and bool(new - old)
        and not _content_words(old_text).isdisjoint(_content_words(new_text))
    )


def _presses(
    older: MergedCandidate,
    newer: MergedCandidate,
    told: datetime,
    as_of: datetime,
    rule: NewerStatementsPolicy,
    question_now: bool,
    question_many: bool = False,
    marked: bool = False,
    shown_newer: bool = False,
    quantity: bool = False,
    tier: Set[str] = frozenset(),
) -> tuple[float, bool, bool, bool, bool, bool, bool] | None:
    """(cosine, whether the newer turn's own present-time words made it press, whether its
    restated amount did, whether its place among the shown did, whether it pressed below
    `min_cosine`, whether it says the older one's value is over, whether a small first tier
    tied the two whatever their σ) when `newer` presses
    `older`, else None. `question_now`: the question's words place it in the present (or
    `explicit_now` is off). `marked`: the newer turn says it holds now (`_marked`).
    `shown_newer`: the newer turn is among the first shown and the question asks which value
    holds now (`shown_newer_leads`). `quantity`: the question asks for a quantity
    (`ASKS_QUANTITY`), so a restated bare number presses too (`restates_count`). `tier`: the
    ranking's first tier, for `low_cosine_versions.tied`. A newer raw turn that says what the
    older one names is over (`ended_value_marks`) is marked for this pair."""
    old, new = older.record.edge, newer.record.edge
    ended = (
        not marked
        and rule.ended_value_marks
        and new.episodic
        and ended_values.says_ended(old.text, new.text)
    )
    marked = marked or ended
    unmarked = not marked and not question_now
    if unmarked and (not rule.unmarked_single_value or question_many):
        return None
    restated = shown = few = False
    # Read once: the shown newer turn's closeness and the "about the same thing" gate below.
    cosine = (
        float(np.dot(older.vector, newer.vector))
        if older.vector is not None and newer.vector is not None
        else None
    )
    if not marked and newer.sigma < older.sigma - rule.sigma_margin:
        # The user gave the amount anew: the newer number leads however its words match
        # the question (round 20, AV8: a renewal's new premium worded unlike the question).
        restated = rule.restated_amount and restates_amount(old.text, new.text)
        # Or a bare number restated, for a question that asks a quantity: a running total or
        # a count has no currency or period to tie it, so the two must be close (round 24).
        restated = restated or (
            quantity
            and cosine is not None
            and cosine >= rule.restated_count_min_cosine
            and restates_count(old.text, new.text)
        )
        # Or the ranking shows the newer statement itself among the first, close to the
        # older one: two versions of one thing, both shown; for "which … now?" the newer leads
        # (A.7.3) however their words match the question (round 21, AV4: "Re-fixed at 3.85 %"
        # beside "signed 3.60 % today" for "what rate is my mortgage at currently?").
        shown = (
            not restated and shown_newer and cosine is not None and cosine >= rule.shown_min_cosine
        )
        # Or both are among the few candidates the question singles out (round 26).
        few = (
            not restated
            and not shown
            and cosine is not None
            and small_tier.tied(older, newer, cosine, question_many, tier, rule)
        )
        if not restated and not shown and not few:
            return None
    if (
        not new.episodic
        or cosine is None
        or old.edge_id in new.episodic_of
        or not set(old.source_turns).isdisjoint(new.source_turns)
        or new.ingest_time > as_of
        or new.ingest_time - told < timedelta(hours=rule.min_gap_hours)
        or about_before(new.text)
    ):
        return None
    said_now = marked and not ended
    if cosine >= rule.min_cosine or few:
        return (cosine, said_now, restated, shown, False, ended, few)
    if low_cosine_versions.tied(older, newer, cosine, marked, question_many, tier, rule):
        return (cosine, said_now, restated, shown, True, ended, few)
    return None


def demotions(
    intent: Intent,
    question: str,
    window: Sequence[MergedCandidate],
    as_of: datetime,
    rule: NewerStatementsPolicy,
    shown: int = 5,
    deeper: Sequence[MergedCandidate] = (),
    turn_keys: Mapping[str, frozenset[str]] | None = None,
    tier: Set[str] = frozenset(),
) -> dict[str, Newer]:
    """Edge id → the newer raw turn that leads it, for the candidates `window` (the first of
    the ranking, in its order); only the first `shown` can be demoted. `deeper`: the
    candidates ranked after the window that may press too (`pressers_from`), by the same
    gates — the newer statement the question's words miss ranks past the window, and it is
    as much the user's newer word as one inside it (round 21). They keep their places.
    `turn_keys`: a raw turn's id → the slot keys of the facts drawn from it (read from the
    store), for `_keyed_apart`. `tier`: the edge ids of the ranking's first tier (the
    candidates judged relevant to the question), which may tie a pair below `min_cosine`
    (`low_cosine_versions.tied`)."""
    if not rule.enabled or intent is not Intent.CURRENT:
        return {}
    question_now = not rule.explicit_now or asks_now(question)
    if not question_now and not rule.turn_says_now and not rule.unmarked_single_value:
        return {}
    many = asks_for_many(question)
    quantity = ASKS_QUANTITY.search(question) is not None
    # Read once per newer turn, not once per pair (`says_now` scans the whole turn).
    says = {m.record.edge_id: _marked(m, rule) for m in [*window, *deeper]}
    if not question_now:
        # Past the window for a question that does not say now (a present-habit do-question,
        # `reads_deeper(…, habit=True)`), only the user's own mark of the change vouches that
        # the turn is a newer version and not a remark on the topic (round 25).
        deeper = [m for m in deeper if says[m.record.edge_id]]
    pressers = [*window, *deeper]
    aimed = _aims(window[:shown], deeper)
    # The newer turns shown among the first (before any rule moves them), for a question that
    # asks which value holds now: their place waives the σ condition (`shown_newer_leads`).
    leads_shown = (
        {m.record.edge_id for m in window[:shown]}
        if rule.shown_newer_leads and asks_current_value(question, rule.present_habit_leads)
        else set()
    )
    if (
        not leads_shown
        and rule.shown_newer_leads
        and rule.present_habit_leads
        and rule.present_habit_others_min_cosine <= 1.0
        and asks_current_value(question, True, others=True)
    ):
        # A do-question about someone else: the two versions must be closer (the policy note).
        leads_shown = {m.record.edge_id for m in window[:shown]}
        rule = rule.model_copy(update={"shown_min_cosine": rule.present_habit_others_min_cosine})
    out: dict[str, Newer] = {}
    for older in window[:shown]:
        told = mentioned_as_of(older.record, as_of)
        pressing = [
            (newer, pressed)
            for newer in pressers
            if newer is not older
            and aimed.get(newer.record.edge_id, older.record.edge_id) == older.record.edge_id
            and not (
                newer.record.edge_id in aimed and _keyed_apart(older, newer, turn_keys or {})
            )
            and (
                pressed := _presses(
                    older, newer, told, as_of, rule, question_now, many,
                    says[newer.record.edge_id] and not _names_other(newer, older, rule),
                    newer.record.edge_id in leads_shown, quantity,
                    tier,
                )
            )
            is not None
            and (newer.record.edge_id not in aimed or pressed[0] >= rule.deeper_min_cosine)
        ]  # fmt: skip
        if pressing:
            newest, (cosine, marked, restated, by_place, tied, ended, few) = max(
                pressing, key=lambda p: (p[0].record.edge.ingest_time, p[0].record.edge_id)
            )
            out[older.record.edge_id] = Newer(
                newest.record.edge_id, round(cosine, 2), marked, restated,
                shown=by_place, deeper=newest.record.edge_id in aimed, tied_by_question=tied,
                ended=ended, few=few,
            )  # fmt: skip
    if rule.facts_follow:
        # A fact follows only a turn the present was said of: by the question, or by the
        # newer turn itself. An unmarked pressing (neither says "now") is the weakest reading
        # of a change: "What new activity has X started learning in <month>?" is a question
        # for a set the asker dates, and the later turn one more item (LoCoMo dev, round 20).
        # A restated amount is no weak reading either: the newer number replaces the older
        # (A.7.1), and what was drawn from the older turn is as old (round 23).
        unmarked_follows = rule.follow_unmarked and not names_its_moment(question)
        # ... but not after a turn that only weighs a change ("thinking about moving to
        # Berlin, not decided yet"): the fact of the value it weighs against still holds
        # (Appendix F soft supersession, AV9; `latest_value.hedged_never_newest`'s reading).
        leaders = {v.by for v in out.values()}
        weighed = {
            m.record.edge_id
            for m in pressers
            if m.record.edge_id in leaders and m.record.edge.episodic and hedged(m.record.edge.text)
        }
        led = {
            k: v
            for k, v in out.items()
            if question_now
            or v.marked
            or v.ended
            or v.restated
            or (unmarked_follows and v.by not in weighed)
        }
        out.update(follow(window, pressers, led))
    return out


def reads_deeper(question: str, habit: bool = False) -> bool:
    """Whether pressers past the window are read for this question (`pressers_from`). Inside
    the window the question vouches that a turn is about what it asks; past it, only a
    question that contrasts the present with before (`asks_now`: the asker expects a change)
    looks for the newer statement there, and never a question for a set (`asks_for_many`: a
    later turn is one more item, AV5). Measured (round 21): of the demotions deeper pressers
    made on the validation tellings, for questions that say now 5 moved a stale answer and 2
    a gold one out of the first five; for the others 1 and 6 — and on LoCoMo dev (development)
    deeper "now" turns pressed the evidence of dated and set questions.

    `habit` (`deeper_marked_habit`, round 25): also a do-question in the simple present,
    whoever its subject (`asks_current_value` with the present habit: "how does she get to
    work?" asks which way holds now without saying "now"); then only a deeper turn that itself
    says the change (`_marked`) presses (`demotions`) — the user's word standing in for the
    asker's contrast with before. Not for a verb of attitude (`asks_attitude`: "what does she
    hope …?" asks what was said; LoCoMo dev lost a question at 5 to a later, close "now"
    remark on the same hope)."""
    if asks_for_many(question):
        return False
    return asks_now(question) or (
        habit and asks_current_value(question, True, others=True) and not asks_attitude(question)
    )


def _keys(candidate: MergedCandidate, turn_keys: Mapping[str, frozenset[str]]) -> set[str]:
    """The slot keys a candidate carries: its own, and a raw turn's drawn facts' (`turn_keys`)."""
    edge = candidate.record.edge
    own = {edge.slot_key} if edge.slot_key else set()
    return own | set(turn_keys.get(candidate.record.edge_id, ()))


def _keyed_apart(
    older: MergedCandidate, newer: MergedCandidate, turn_keys: Mapping[str, frozenset[str]]
) -> bool:
    """Whether the extractor keyed the two to different slots and to no common one: then a key
    says what each is about, and they are about different things — a later "I take amlodipine
    now" (a medication's slot) is no newer statement of what one listens to (a music slot),
    however near their vectors (generator seed-29 test half: two Hit@1 lost to deeper pressers
    keyed apart, round 21). Without a key on either side the vectors decide, as in the window."""
    old, new = _keys(older, turn_keys), _keys(newer, turn_keys)
    return bool(old) and bool(new) and old.isdisjoint(new)


def _aims(shown: Sequence[MergedCandidate], deeper: Sequence[MergedCandidate]) -> dict[str, str]:
    """A deeper presser's id → the one candidate of the first five (`shown`) it may press: the
    one its stored vector is nearest (ties by edge id). Past the window the question no longer
    vouches that a turn is about what it asks, so "about the same thing" is read against the
    candidates the rule may move: the newer statement must be about this one more than about
    any other (as `bracketed.py` reads a middle version by its nearest). Measured on the
    validation tellings (round 21): without it a later turn saying "now" of something else
    (cosine 0.30-0.39 to two of the first five) pressed both and lifted a stale turn to 5th."""
    vectors = [(m.record.edge_id, m.vector) for m in shown if m.vector is not None]
    out: dict[str, str] = {}
    for newer in deeper:
        if newer.vector is None or not vectors:
            continue
        near = newer.vector
        out[newer.record.edge_id] = max(vectors, key=lambda v: (float(np.dot(v[1], near)), v[0]))[0]
    return out


def follow(
    shown: Sequence[MergedCandidate],
    window: Sequence[MergedCandidate],
    led: Mapping[str, Newer],
) -> dict[str, Newer]:
    """The facts among `shown` drawn from a raw turn `led` by a newer one (the turn's
    `episodic_of`): they follow their turn. The turn was the user's whole statement; the
    facts the extractor drew from it are its parts, told at the same moment, and a concise
    fact matches the question better than the newer turn's own words, so σ, which the turn
    passed, would keep it in front. Round 18 measured every drawn fact following every led
    turn: one LoCoMo dev question lost at 5, a question for a set the asker dated ("… started
    learning in <month>?") whose evidence fact followed a turn led by an *unmarked* pressing;
    the caller passes only turns led where the present was said (`facts_follow`). Requiring
    the fact to be about what the newer turn says (cosine >= 0.3) changed nothing on LoCoMo
    and kept a stale fact on a validation telling: not required. A fact already led on its
    own keeps that reason; ties go to the first turn in window order."""
    by_id = {m.record.edge_id: m for m in window}
    out: dict[str, Newer] = {}
    for fact in shown:
        edge = fact.record.edge
        if edge.episodic or fact.vector is None or fact.record.edge_id in led:
            continue
        for turn in window:
            newer = led.get(turn.record.edge_id)
            if newer is None or fact.record.edge_id not in turn.record.edge.episodic_of:
                continue
            presser = by_id.get(newer.by)
            if presser is None or presser.vector is None:
                continue
            cosine = round(float(np.dot(fact.vector, presser.vector)), 2)
            # By name: `shown` comes before `deeper` (positionally the turn's `deeper` was read
            # as `shown`, round 25).
            out[fact.record.edge_id] = Newer(
                newer.by, cosine, newer.marked, newer.restated, turn.record.edge_id,
                shown=newer.shown, deeper=newer.deeper, ended=newer.ended, few=newer.few,
            )  # fmt: skip
            break
    return out


def explain(newer: Newer) -> str:
    said = (
        ", which says it holds now"
        if newer.marked
        else ", which says this one's value is over"
        if newer.ended
        else ", which restates the amount"
        if newer.restated
        else ", shown itself and close to this one"
        if newer.shown
        else ", both among the few the question singles out"
        if newer.few
        else ""
    ) + (", found past the window, nearest the statement it leads" if newer.deeper else "")
    if newer.tied_by_question:
        said += ", and the question ties the two though their words differ"
    if newer.drawn_from is not None:
        return (
            f"drawn from {newer.drawn_from}, which a newer statement about what the question "
            f"asks leads ({newer.by}, told later{said}; this fact's cosine to it "
            f"{newer.cosine:.2f}): it may be outdated with its turn"
        )
    return (
        f"a newer statement about what the question asks ({newer.by}, told later{said}, "
        f"cosine {newer.cosine:.2f}) leads current questions; this earlier one may be outdated"
    )
