"""Financial & Material: amounts that are tracked as state and replaced (Table 1 row 8).

"Rent $950/mo" → "Rent $1,100/mo" is the paper's example of state tracking: the slot is the
thing paid or earned (user.rent, user.salary …), the value the amount *verbatim* with its
period, and the fact is numeric so the numeric rescue of Appendix H keeps it reachable.
"""

from __future__ import annotations

import re
from dataclasses import replace

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, slug, subject_is_user, trim_phrase
from workers.extraction.draft import Draft

_I = re.IGNORECASE
_NUM = r"\d[\d,]*(?:\.\d+)?(?:\s?(?:k|K|m|M|mil|million|thousand|grand))?\b"
_SYM = r"[$£€¥₺₹₩₦₱₽]"
_CUR = (
    r"dollars|bucks|euros?|pounds|quid|lira|liras|yen|rupees|usd|eur|gbp|cad|aud|try|chf"
    r"|francs|pesos|kr|sek|nok|dkk|zloty|rand|won|yuan|rmb"
)
_RANGE = rf"(?:\s?(?:-|–|to)\s?{_SYM}?\s?{_NUM})?"
AMOUNT = (
    rf"(?:(?:{_SYM}|\b(?:usd|eur|gbp|cad|aud|chf|ksh|kes|ngn|zar|inr|rs\.?|r|a\$|c\$|nz\$|hk\$"
    rf"|s\$|r\$|us\$)\s?)\s?{_NUM}{_RANGE}(?:\s?(?:{_CUR})\b)?"
    rf"|{_NUM}{_RANGE}\s?(?:{_CUR})\b)"
)
#: After an explicit item ("my rent is 1200 a month") a bare number is an amount too.
_LOOSE = (
    rf"(?:{AMOUNT}|{_NUM}{_RANGE}(?!\s*(?:%|percent|days?|weeks?|months?|years?|hours?|minutes?"
    r"|times|late|early|people|of\b)))"
)
_PERIOD = (
    r"(?:\s?(?:/|per|a|an|each|every)\s?(?P<per>month|mo|year|yr|annum|week|wk|hour|hr|day"
    r"|night|head|person|service|session|visit|class|haircut)\b|\s(?P<per2>monthly|yearly"
    r"|annually|weekly|hourly|daily))?"
)
_PERIODS = {"mo": "month", "yr": "year", "annum": "year", "wk": "week", "hr": "hour",
            "monthly": "month", "yearly": "year", "annually": "year", "weekly": "week",
            "hourly": "hour", "daily": "day"}  # fmt: skip
_ITEMS = (
    r"rent|mortgage|salary|pay|paycheck|wage|wages|income|savings|budget|debt|student\s+loans?"
    r"|loan|car\s+payment|insurance|bills?|tuition|allowance|pension|bonus|rate|day\s+rate"
    r"|hourly\s+rate|phone\s+bill|electric\s+bill|utilities|childcare|daycare"
    r"|(?:climbing\s+|local\s+)?gym(?:\s+membership|\s+fees?)?|membership(?:\s+fees?)?"
)
_SLOTS = {
    "pay": "salary", "paycheck": "salary", "wage": "salary", "wages": "salary",
    "income": "salary", "student loans": "debt", "student loan": "debt", "loan": "debt",
    "bill": "bills", "rate": "rate", "day rate": "rate", "hourly rate": "rate",
    "daycare": "childcare",
}  # fmt: skip
#: "my gym membership", "the climbing gym", bare "membership" (a brand's is not the gym's).
_GYM = re.compile(r"^(?:\w+\s+)?gym(?:\s+membership|\s+fees?)?$|^membership(?:\s+fees?)?$", _I)
_CHANGE = (
    r"(?:is|'s|are|was|went\s+up\s+to|goes\s+up\s+to|going\s+up\s+to|increased\s+to|jumped\s+to"
    r"|rose\s+to|dropped\s+to|went\s+down\s+to|decreased\s+to|fell\s+to|was\s+raised\s+to|got"
    r"\s+raised\s+to|got\s+bumped\s+to|was\s+cut\s+to|will\s+be|is\s+now|now|of|at|hit|reached"
    r"|(?:are|is|'re|'s)\s+(?:now\s+)?(?:up|down)\s+to|sits\s+at|is\s+sitting\s+at|comes\s+to"
    r"|came\s+to|costs?\s+me|costs?|cost\s+me|runs?\s+me)"
)
_ITEM_IS = re.compile(
    rf"\b(?P<own>my|our|the)?\s*(?P<item>{_ITEMS})(?:\s+|(?=['’]s\b))(?:is\s+)?(?:now\s+)?{_CHANGE}"
    r"\s+(?:now\s+)?"
    rf"(?:only\s+|about\s+|around\s+|like\s+|roughly\s+|almost\s+|over\s+|just\s+)?"
    rf"(?P<amt>{_LOOSE}){_PERIOD}",
    _I,
)
_RAISED = re.compile(
    r"\b(?:raised|increased|bumped|hiked|upped|lowered|dropped|cut|reduced|put|putting|get|got"
    r"|getting|managed\s+to\s+get|brought|bring)\s+(?:my|our|the)\s+"
    rf"(?P<item>{_ITEMS})\s+(?:up\s+|down\s+)?to\s+(?P<amt>{_LOOSE}){_PERIOD}",
    _I,
)
_PAY_FOR = re.compile(
    rf"\b(?:pay|paying|spend|spending)\s+(?P<amt>{_LOOSE}){_PERIOD}\s+(?:in|for|on|towards)\s+"
    rf"(?:my\s+|the\s+|our\s+)?(?P<item>{_ITEMS})\b",
    _I,
)
_EARN = re.compile(
    r"\b(?:make|making|earn|earning|get\s+paid|getting\s+paid|take\s+home|bring\s+in|got\s+"
    r"(?:a\s+)?raise\s+to|got\s+bumped\s+to|salary\s+of|offered)\s+"
    rf"(?:about\s+|around\s+|like\s+|roughly\s+)?(?P<amt>{_LOOSE}){_PERIOD}",
    _I,
)
_BARE = re.compile(rf"^{_NUM}$", _I)
_PAID_OFF = re.compile(rf"\bpaid\s+off\s+(?:my|the|our)\s+(?P<item>{_ITEMS})\b", _I)
_SAVED = re.compile(
    r"\b(?:have|'ve\s+got|got|(?:we're|i'm|we\s+are|i\s+am)\s+(?:now\s+)?(?:at|up\s+to))\s+"
    r"(?:about\s+|around\s+|almost\s+|nearly\s+|over\s+)?"
    rf"(?P<amt>{AMOUNT})\s+(?:saved|put\s+away|in\s+(?:savings|(?:the|my|our)\s+(?:savings\s+account"
    r"|bank|savings)))"
    rf"|^(?:about\s+|around\s+)?(?P<amt3>{AMOUNT})\s+(?:saved|in\s+savings|put\s+away)\b"
    rf"|\b(?:saved|saved\s+up|put\s+away)\s+(?P<amt2>{AMOUNT})",
    _I,
)
_OWE = re.compile(rf"\b(?:owe|owing)\s+(?P<amt>{AMOUNT})(?:\s+(?:in|on)\s+(?P<what>[\w ]+))?", _I)
_CHARGE = re.compile(
    rf"\b(?:charge|charging|raise\s+(?:my\s+)?prices?\s+(?:by|to)|add(?:ing)?|costs?)\s+"
    rf"(?:about\s+|around\s+|maybe\s+)?(?P<amt>{AMOUNT})\s*(?:extra|more)?\s*(?:per|a|for|each)"
    r"\s+(?P<what>[\w' -]+)"
    rf"|\b(?P<amt2>{AMOUNT})\s+(?:extra|more)\s+(?:per|a|for|each)\s+(?P<what2>[\w' -]+)",
    _I,
)
#: A rate named by what one bills: "I bill C$122 per hour", "New rate: €58 per hour",
#: "$155 an hour for private clients".
_RATE = re.compile(
    r"\b(?:i|we)\s+(?:now\s+|currently\s+|usually\s+)?(?:bill|charge|invoice)(?:\s+(?:my\s+)?"
    r"(?:clients|customers|students))?\s+(?:about\s+|around\s+)?"
    rf"(?P<amt>{AMOUNT})\s*(?:/|per|an?)\s*(?P<per>hour|hr|day)\b"
    r"|\b(?:new|my|our|current)\s+(?:hourly\s+|day\s+)?rate\s*(?::|is|'s)\s*(?:now\s+)?"
    rf"(?P<amt2>{AMOUNT})(?:\s*(?:/|per|an?)\s*(?P<per2>hour|hr|day)\b)?"
    rf"|^(?P<amt3>{AMOUNT})\s*(?:/|per|an?)\s*(?P<per3>hour|hr)\s+for\s+(?:my\s+)?(?:private\s+"
    r"|new\s+|regular\s+)?(?:clients|customers|students|sessions|lessons|tutoring|consulting)\b",
    _I,
)
#: "I'm on A$105,000 a year", "got a raise, I'm on ¥32,700,000 now".
_ON_PAY = re.compile(
    r"\b(?:i'm|i\s+am|im)\s+(?:now\s+)?on\s+(?:about\s+|around\s+)?"
    rf"(?P<amt>{AMOUNT})(?:\s*(?:/|a|an|per)\s*(?P<per>year|yr|annum)\b|\s+(?P<now>now)\b)",
    _I,
)
_PAY_TALK = re.compile(r"\b(?:raise|salary|pay\s+rise|promot\w+|pay|earn\w*)\b", _I)
#: "KSh 8,190 a month for the climbing gym": the amount first.
_AMOUNT_FOR = re.compile(
    rf"^(?:about\s+|around\s+)?(?P<amt>{AMOUNT}){_PERIOD}\s+(?:for|on)\s+(?:my\s+|the\s+|our\s+)"
    rf"(?P<item>{_ITEMS})\b",
    _I,
)
_BOUGHT = re.compile(
    r"\b(?:bought|purchased|got|paid)\s+(?:a|an|my|the|our)\s+(?:new\s+|used\s+)?"
    rf"(?P<what>[\w' -]{{1,30}}?)\s+for\s+(?P<amt>{AMOUNT})",
    _I,
)


def _value(amount: str, m: re.Match[str]) -> str:
    """The amount verbatim, with its period normalized: "$1,100 a month" → "$1,100/month"."""
    groups = m.groupdict()
    per = groups.get("per") or groups.get("per2")
    amount = " ".join(amount.split())
    if not per:
        return amount
    return f"{amount}/{_PERIODS.get(per.lower(), per.lower())}"


_OWN_ITEM = re.compile(rf"^(?:{_ITEMS})$", _I)


def owned_slot(item: str) -> str | None:
    """The slot this family keys a user's `item` under ("gym membership" → user.gym), or None
    when the item is none of its own: another family that reads an amount of the same thing
    ("the gym membership went up again, …") keys it here, so the two amounts meet in one
    slot and the newer supersedes the older (Table 1)."""
    item = " ".join(item.split())
    return _slot(item) if _OWN_ITEM.match(item) else None


def _slot(item: str) -> str:
    item = " ".join(item.lower().split())
    if _GYM.match(item):
        return "user.gym"
    return f"user.{_SLOTS.get(item, item).replace(' ', '_')}"


def _draft(
    kind: str,
    slot: str,
    value: str,
    m: re.Match[str],
    *,
    update: d.UpdateSemantics = d.R,
    priority: int = 6,
) -> Draft:
    return d.from_match(
        kind, slot, value, m, d.FINANCIAL, update, d.COMMITTED, priority, numeric=True
    )


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    out: list[Draft] = []
    for pattern in (_ITEM_IS, _RAISED, _PAY_FOR, _AMOUNT_FOR):
        for m in pattern.finditer(text):
            own = m.groupdict().get("own")
            prefix = text[: m.start()].lower()
            if re.search(r"\b(?:his|her|their|my\s+\w+'s|[a-z]+'s)\s*$", prefix):
                continue  # "my sister's rent": not the user's
            last = re.search(r"(\w+)\s*$", prefix) if pattern is _ITEM_IS else None
            if (
                last
                and last[1] not in {"my", "our", "the", "new", "current"}
                and m["item"].lower().startswith(("membership", "rate"))
            ):
                continue  # "the Netflix membership", "my heart rate": not the gym, not pay
            if (
                pattern is _ITEM_IS
                and not own
                and re.search(r"\b(?:average|national|median)\b", prefix)
            ):
                continue  # world knowledge, not the user's (paper D.5)
            out.append(_draft("financial.amount", _slot(m["item"]), _value(m["amt"], m), m))
    for m in _EARN.finditer(text):
        amount = m["amt"].strip()
        if _BARE.match(amount) and not (m["per"] or m["per2"]) and not amount[-1:].isalpha():
            continue  # "I make 3 cakes": a bare number needs a period or a "k" to be pay
        if subject_is_user(text, m.start()):
            out.append(_draft("financial.salary", "user.salary", _value(amount, m), m))
    for m in _RATE.finditer(text):
        amt = m["amt"] or m["amt2"] or m["amt3"]
        per = m["per"] or m["per2"] or m["per3"]
        value = " ".join(amt.split()) + (
            f"/{_PERIODS.get(per.lower(), per.lower())}" if per else ""
        )
        out.append(_draft("financial.rate", "user.rate", value, m, priority=5))
    for m in _ON_PAY.finditer(text):
        if m["now"] and not _PAY_TALK.search(clause.sentence_text or text):
            continue  # "I'm on $20 now" says nothing about pay without a raise or a salary
        out.append(_draft("financial.salary", "user.salary", _value(m["amt"], m), m))
    for m in _PAID_OFF.finditer(text):
        if subject_is_user(text, m.start()):
            draft = _draft("financial.paid_off", _slot(m["item"]), "paid off", m)
            out.append(replace(draft, numeric=False))
    for m in _SAVED.finditer(text):
        if subject_is_user(text, m.start()):
            amt = m["amt"] or m["amt2"] or m["amt3"]
            out.append(_draft("financial.savings", "user.savings", " ".join(amt.split()), m))
    for m in _OWE.finditer(text):
        if subject_is_user(text, m.start()):
            what = slug(trim_phrase(m["what"], 2)) if m["what"] else ""
            slot = "user.debt" if not what or "loan" in what else f"user.debt.{what}"
            out.append(_draft("financial.debt", slot, " ".join(m["amt"].split()), m))
    for m in _CHARGE.finditer(text):
        what = trim_phrase(m["what"] or m["what2"], 2)
        amt = m["amt"] or m["amt2"]
        if what:
            out.append(
                _draft(
                    "financial.price",
                    f"price.{slug(what, max_words=2)}",
                    f"{' '.join(amt.split())}/{what}",
                    m,
                    priority=7,
                )
            )
    for m in _BOUGHT.finditer(text):
        what = trim_phrase(m["what"], 3)
        if what and subject_is_user(text, m.start()):
            out.append(
                _draft(
                    "financial.purchase",
                    f"user.purchase.{slug(what, max_words=2)}",
                    " ".join(m["amt"].split()),
                    m,
                    update=d.A,
                    priority=7,
                )
            )
    return out
