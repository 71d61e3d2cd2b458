"""Pets: a pet the user has (named or not), and a pet that left — rehomed, given away, died.

Pets are relational bonds (Table 1 row 2) that accumulate: a new pet is an add, never a
replace of another one. A named pet has a slot of its own (`pet.<name>`), so "Bruno went to
live with my parents" ends Bruno and leaves the other rabbit current; an unnamed one is keyed
by its species. Names are read as the people family reads them (`patterns_social.named`).
This family runs right after `patterns_social` (`rules.FAMILIES`), where it used to be the
tail of that family's `find`: the drafts come in the same order.
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, slug, subject_is_user
from workers.extraction.draft import Draft, from_match
from workers.extraction.lexicon import PETS, words
from workers.extraction.patterns_social import CAP, named

_I = re.IGNORECASE
_PET_WORDS = "|".join(sorted(PETS, key=len, reverse=True))
_PET_OWNED = re.compile(
    r"\b(?:(?:i|we)\s+(?:have|'ve\s+got|own)|(?:just\s+)?(?:got|adopted|rescued|brought\s+home"
    r"|picked\s+up))\s+(?:a|an|two|three|our|my|the)\s+(?:new\s+)?(?:[\w-]+\s+)?"
    rf"(?P<pet>{_PET_WORDS})\b(?:\s*,?\s+(?:named|called)\s+(?P<name>[A-Z]?\w+)"
    rf"|\s*,\s+(?P<name3>{CAP})\s*(?:$|[,.;!?]))?"
    rf"|\b(?:my|our)\s+(?:\w+\s+){{0,2}}(?P<pet2>{_PET_WORDS})\s+(?P<name2>{CAP})"
    rf"|^(?P<name4>{CAP}),?\s+(?:my|our)\s+(?:\w+\s+)?(?P<pet4>{_PET_WORDS})\b",
    _I,
)
#: A named pet leaving: "we had to rehome Juniper", "Bruno went to live with my parents",
#: "Tofu passed away", "we gave Olive to my sister". Its slot is the pet's name.
_PET_GONE_NAMED = re.compile(
    rf"\b(?:rehome|rehomed|rehoming)\s+(?P<n1>{CAP})"
    rf"|(?:^|[,;]\s*)(?P<n2>{CAP})\s+(?:passed\s+away|died(?!\s+(?:in|on)\s+(?:the|a|that)\b)|ran\s+away|went\s+to\s+live\s+with"
    r"|(?:now\s+)?lives\s+with\s+(?:my|our)|crossed\s+the\s+rainbow\s+bridge)"
    rf"|\b(?:gave|given|giving)\s+(?P<n3>{CAP})\s+(?:away|to\s+(?:my|our|a|the)\b)"
    rf"|\bsaid\s+(?:our\s+|my\s+)?(?:final\s+|last\s+)?goodbyes?\s+to\s+(?P<n4>{CAP})"
    r"(?=\s*(?:$|[,.;!?]|this\b|last\b|today\b|yesterday\b))"
    rf"|\bput\s+(?P<n5>{CAP})\s+down\b",
)
_FAMILY_WORDS = frozenset(
    words(
        "grandma grandpa granny gran nan nana grandad granddad mum mom dad mother father uncle "
        "aunt auntie cousin sister brother god jesus"
    )
)
_PET_GONE = re.compile(
    rf"\b(?:my|our)\s+(?P<pet>{_PET_WORDS})(?:\s+{CAP})?\s+(?:passed\s+away|died|ran\s+away)"
    rf"|\b(?:had\s+to\s+)?(?:put\s+down|rehome|rehomed|gave\s+away)\s+(?:my|our)\s+"
    rf"(?P<pet2>{_PET_WORDS})",
    _I,
)


#: "Miso, our rabbit, is the boss of the house": the comma splits the name from its clause.
_APPOSED_PET = re.compile(rf"^(?:my|our)\s+(?:\w+\s+)?(?P<pet>{_PET_WORDS})\b", _I)
_NAME_BEFORE = re.compile(rf"(?:^|[,;]\s*)(?P<n>{CAP}),\s*$")


def find(clause: Clause) -> list[Draft]:
    """Drafts of the pets the user has or no longer has in `clause`."""
    out: list[Draft] = []
    _pets(clause.text, out)
    _apposed_pet(clause, out)
    return out


def _apposed_pet(clause: Clause, out: list[Draft]) -> None:
    sentence = clause.sentence_text or ""
    m = _APPOSED_PET.match(clause.text)
    at = sentence.find(clause.text) if m else -1
    before = _NAME_BEFORE.search(sentence[:at]) if m and at > 0 else None
    if m is None or before is None or (name := named(before["n"])) is None:
        return
    species = PETS[m["pet"].lower()]
    out.append(
        from_match(
            "pet.owned_noun",
            f"pet.{slug(name, max_words=2)}",
            name,
            m,
            d.RELATIONAL,
            d.A,
            d.COMMITTED,
            36,
            statement=f"User has a {species} named {name}",
        )
    )


def _pets(text: str, out: list[Draft]) -> None:
    for m in _PET_OWNED.finditer(text):
        word = (m["pet"] or m["pet2"] or m["pet4"]).lower()
        if m["pet"] and not subject_is_user(text, m.start()):
            continue
        if re.search(
            r"\b(?:want|wanna|plan|planning|thinking|hoping|looking)\b", text[: m.start()], _I
        ):
            continue  # a wish, not a pet: the plan family handles it
        species = PETS[word]
        name = named(m["name"] or m["name2"] or m["name3"] or m["name4"])
        # A named pet has a slot of its own, so that "Bruno went to live with my parents"
        # ends Bruno and leaves the other rabbit current.
        out.append(
            from_match(
                "pet.owned",
                f"pet.{slug(name, max_words=2)}" if name else f"pet.{slug(species)}",
                name or species,
                m,
                d.RELATIONAL,
                d.A,
                d.COMMITTED,
                36,
                statement=f"User has a {species} named {name}" if name else None,
                dates="past",
            )
        )
    for m in _PET_GONE_NAMED.finditer(text):
        name = named(next(v for k, v in m.groupdict().items() if v))
        if name is None or name.lower() in _FAMILY_WORDS:
            continue
        out.append(
            from_match(
                "pet.gone_noun" if m["n2"] else "pet.gone",
                f"pet.{slug(name, max_words=2)}",
                "gone",
                m,
                d.RELATIONAL,
                d.R,
                d.COMMITTED,
                35,
                dates="past",
                statement=f"User no longer has their pet {name}",
            )
        )
    for m in _PET_GONE.finditer(text):
        species = PETS[(m["pet"] or m["pet2"]).lower()]
        out.append(
            from_match(
                "pet.gone",
                f"pet.{slug(species)}",
                None,
                m,
                d.RELATIONAL,
                d.R,
                d.COMMITTED,
                36,
                dates="past",
            )
        )
