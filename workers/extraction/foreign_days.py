"""A day told in another language inside an English chat, read as the English it says.

Users of multilingual platforms write their appointments in their own language, or switch
language mid-turn: "Zahnarzt am Freitag, den 22. Mai, um 9:30", "mon train est demain à
7h25", "la cita es el martes 3 de junio a las 7 de la tarde". The date reader
(`dates.py`) reads English only, so such an event got no event time and never expired
(paper §3.3: obligations and logistics are valid until their event time h; A.7.3 / Table 13:
an event is ephemeral and expires after its time) — an upcoming-events question (AV2) served
it after it had passed.

`in_english(text)` writes the *day words* of German, French, Spanish, Italian, Portuguese
and Dutch as English date words — weekday and month names, the relative days (today,
tomorrow, the day after), a day number with its article ("den 15.", "le 3", "el día 3"),
clock times ("6h10", "18 Uhr", "a las 7", "alle 9", "om 10 uur", "às 14h30") with their
half of the day ("de la tarde", "du soir") and the words of recurrence ("jeden", "chaque",
"cada", "ogni", "elke": a routine's day must stay a routine's, `recurrence.py`) — and leaves
everything else as it was; the English date reader then reads the turn as it reads any
English one, with its own guards. A turn without a non-English day word comes back as the
same string, so an English turn is read exactly as before (and pays one regex search).

Why not dateparser's own languages (`search_dates(languages=[...])`): measured on such
turns (dateparser 1.5), it reads French "je" as Thursday and Spanish "mi" as Wednesday (their
two-letter abbreviations), splits "am Donnerstag, den 21. Mai" into the coming Thursday and
the 21st (and takes the first), misses "el martes 3 de junio a las 7 de la tarde" entirely
and reads Dutch "morgen om 10 uur" as ten hours from now. The names below are dateparser's
own (its locale data, full forms only); the grammar around them is ours.

Guards, each against a word that is also something else (tests/unit/test_foreign_days.py):
a month name counts only beside a day number, and "mars" / "mai" (a planet, a name, the
English "may") only with their language's mark ("le 3 mars", "15. Mai", "3 de maio"); German
"Morgen" after an article or a greeting, Spanish "mañana" after "la", "esta", "cada" … is
the morning, not tomorrow; "Domingo" / "Domenica" capitalised without an article are names;
"mardi gras" is a festival; a bare "segunda" / "quinta" (second, an estate) is a weekday only
after "na", "nesta", "próxima"; "a las" or "alle" without a number, and German "Tag", are
no clock and no day; a past day ("gestern", "hier" — German and Dutch "here") is not read.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

_EN_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_EN_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Language:
    """One language's day words (regex alternatives, lower case, accents as written)."""

    weekdays: tuple[str, ...]  # Monday … Sunday, each an alternation
    months: tuple[str, ...]  # January … December
    today: str
    tomorrow: str
    after_tomorrow: str
    tonight: str
    this_morning: str
    #: A word before a weekday that says which: "the coming one" (dropped) or "next".
    on: str
    next: str
    #: A word before a weekday that puts it behind: "seit", "depuis", "letzten", "vorige".
    last: str
    #: What makes a weekday recur: "every", a plural article ("los jueves", "às quintas").
    every: str
    #: The article or preposition before a bare day number ("den 15.", "le 3").
    day_article: str
    #: Clock prepositions ("um", "à", "a las", "alle", "às", "om").
    at: str
    pm: str
    am: str


# fmt: off
_LANGUAGES: dict[str, _Language] = {
    "de": _Language(
        weekdays=("montag", "dienstag", "mittwoch", "donnerstag", "freitag",
                  "samstag|sonnabend", "sonntag"),
        months=("januar|jänner", "februar", "märz", "april", "mai", "juni", "juli", "august",
                "september", "oktober", "november", "dezember"),
        today="heute", tomorrow="morgen", after_tomorrow="übermorgen",
        tonight="heute\\s+abend", this_morning="heute\\s+(?:morgen|früh|vormittag)",
        on="am|an\\s+dem|diesen|kommenden", next="nächsten|nächste",
        last="seit|letzten|letzter|vergangenen", every="jeden|jede|jedes",
        day_article="den|am", at="um|gegen|ab",
        pm="abends|nachmittags|am\\s+abend|am\\s+nachmittag",
        am="morgens|früh|vormittags|am\\s+morgen|am\\s+vormittag",
    ),
    "fr": _Language(
        weekdays=("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"),
        months=("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
                "septembre", "octobre", "novembre", "décembre"),
        today="aujourd'hui|aujourd’hui", tomorrow="demain", after_tomorrow="après-demain",
        tonight="ce\\s+soir", this_morning="ce\\s+matin",
        on="ce", next="prochain", last="depuis", every="chaque|tous\\s+les|le",
        day_article="le", at="à|vers|dès",
        pm="du\\s+soir|de\\s+l'après-midi|de\\s+l’après-midi", am="du\\s+matin",
    ),
    "es": _Language(
        weekdays=("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"),
        months=("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
                "septiembre|setiembre", "octubre", "noviembre", "diciembre"),
        today="hoy", tomorrow="mañana", after_tomorrow="pasado\\s+mañana",
        tonight="esta\\s+noche", this_morning="esta\\s+mañana",
        on="el|este", next="próximo", last="desde\\s+el|desde", every="cada|todos\\s+los|los",
        day_article="el\\s+día|el", at="a\\s+las|a\\s+la",
        pm="de\\s+la\\s+tarde|de\\s+la\\s+noche", am="de\\s+la\\s+mañana",
    ),
    "it": _Language(
        weekdays=("lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato", "domenica"),
        months=("gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio",
                "agosto", "settembre", "ottobre", "novembre", "dicembre"),
        today="oggi", tomorrow="domani", after_tomorrow="dopodomani",
        tonight="stasera|stanotte", this_morning="stamattina|stamani",
        on="questo|questa", next="prossimo|prossima", last="da|dal",
        every="ogni|tutti\\s+i|tutte\\s+le|il|la", day_article="il", at="alle|verso\\s+le",
        pm="di\\s+sera|del\\s+pomeriggio|di\\s+pomeriggio",
        am="di\\s+mattina|del\\s+mattino",
    ),
    "pt": _Language(
        weekdays=("segunda-feira", "terça-feira", "quarta-feira", "quinta-feira",
                  "sexta-feira", "sábado", "domingo"),
        months=("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto",
                "setembro", "outubro", "novembro", "dezembro"),
        today="hoje", tomorrow="amanhã", after_tomorrow="depois\\s+de\\s+amanhã",
        tonight="hoje\\s+à\\s+noite", this_morning="hoje\\s+de\\s+manhã",
        on="na|no|nesta|neste|esta|este", next="próxima|próximo",
        last="desde\\s+a|desde\\s+o|desde",
        every="toda|todas\\s+as|todo|todos\\s+os|às|aos", day_article="no\\s+dia|dia",
        at="às", pm="da\\s+tarde|da\\s+noite", am="da\\s+manhã",
    ),
    "nl": _Language(
        weekdays=("maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag",
                  "zondag"),
        months=("januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus",
                "september", "oktober", "november", "december"),
        today="vandaag", tomorrow="morgen", after_tomorrow="overmorgen",
        tonight="vanavond", this_morning="vanmorgen|vanochtend",
        on="op|deze|aanstaande", next="volgende", last="sinds|vorige|afgelopen",
        every="elke|iedere", day_article="op", at="om|rond",
        pm="'s\\s+avonds|'s\\s+middags", am="'s\\s+ochtends|'s\\s+morgens",
    ),
}
# fmt: on
#: Portuguese says a weekday by its number; bare, "segunda" and "quinta" are also "second"
#: and an estate: they are weekdays only after a word that picks a day.
_PT_SHORT_DAYS = ("segunda", "terça", "quarta", "quinta", "sexta")
_PT_SHORT_AFTER = "na|nesta|próxima|proxima|esta|essa|até|ate"
#: French "le jeudi" and Italian "il giovedì" say every Thursday — unless a day number
#: follows ("le jeudi 15 mai").
_HABITUAL_ARTICLES = frozenset({"le", "il", "la"})
_DAY_AFTER_WEEKDAY = re.compile(r",?\s+[0-3]?\d(?!\d)")
#: Month names that are also English words or names: only with their language's mark.
_MARKED_MONTHS = frozenset({"mars", "mai"})
#: Weekday names that are also given names: capitalised without an article, a name.
_NAME_DAYS = frozenset({"domingo", "domenica"})


def _loose(alternation: str) -> str:
    """`alternation` with each accented word also accepted without its accents ("manana",
    "lunedi", "marz"): chat keyboards often drop them."""
    words = alternation.split("|")
    plain = [_unaccented(w) for w in words]
    return "|".join(dict.fromkeys(words + plain))


def _unaccented(word: str) -> str:
    decomposed = unicodedata.normalize("NFD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _all(field: str, loose: bool = True) -> str:
    """One field's words in every language, with their unaccented spellings when `loose`."""
    words = (getattr(lang, field) for lang in _LANGUAGES.values())
    return "|".join(_loose(w) if loose else w for w in words)


#: The clock prepositions as spelled: unaccented, French "à" and Portuguese "às" would be the
#: English "a" and "as" ("as 2 of us").
_AT = _all("at", loose=False)


def _names(field: str, index: int) -> str:
    return "|".join(_loose(getattr(lang, field)[index]) for lang in _LANGUAGES.values())


_WEEKDAY_OF = {i: _names("weekdays", i) for i in range(7)}
_MONTH_OF = {i: _names("months", i) for i in range(12)}
_ANY_WEEKDAY = "|".join(_WEEKDAY_OF.values())
_ANY_MONTH = "|".join(_MONTH_OF.values())
_PT_SHORT = "|".join(_loose(d) for d in _PT_SHORT_DAYS)

#: Morning, not tomorrow: German "heute Morgen", "am Morgen", "guten Morgen"; Spanish "esta
#: mañana", "por la mañana", "cada mañana".
_MORNING_BEFORE = re.compile(
    r"(?:\b(?:heute|gestern|guten|am|den|jeden|diesen|einen|der|des|morgen|goede|goeie"
    r"|la|esta|cada|una|esa|toda|por\s+la|de\s+la|las)\s+)$",
    re.IGNORECASE,
)
_DAY_NUMBER = r"(?P<d>[0-3]?\d)"
#: A day number's own mark: German "15.", French "1er", Spanish/Portuguese "3 de", "1º".
_DAY_MARK = r"(?:\.|er|e|º|°|ª)?"


def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_YEAR = r"(?:,?\s+(?:de\s+)?(?P<y>(?:19|20)\d\d))?"
#: A day and a month: "den 15. Mai", "le 1er mars", "3 de junio de 2026", "il 15 maggio".
_DAY_MONTH = _compile(
    rf"\b(?:(?P<art>{_all('day_article')})\s+)?{_DAY_NUMBER}{_DAY_MARK}\s+(?:(?P<de>de|di|do)\s+)?"
    rf"(?P<month>{_ANY_MONTH})\b{_YEAR}"
)
#: A day number after its article with nothing after it that could be its noun: "Freitag,
#: den 22.", "le 3, à 9h", "el 3 a las 7".
_ARTICLE_DAY = _compile(
    rf"\b(?:den|am)\s+{_DAY_NUMBER}\.(?!\d)"
    rf"|\b(?:{_all('day_article')})\s+(?P<d2>[0-3]?\d)(?:er|e|º|°|ª)?"
    rf"(?=\s*(?:[,;!?)]|\.(?!\d)|$|\s(?:{_AT})\s+\d))"
)
#: "jeudi prochain", "el jueves que viene"; "dimanche dernier", "el domingo pasado".
_NEXT_AFTER = "prochain|que\\s+viene|prossimo|prossima|que\\s+vem"
_LAST_AFTER = "dernier|pasado|scorso|scorsa|passado|passada"
#: An English determiner before a foreign weekday makes it a name: "the Lundi" (a boat).
_ENGLISH_DETERMINER = _compile(r"\b(?:the|a|an|my|our|his|her|their|this)\s+$")
_AFTER_WEEKDAY = _compile(rf"\b(?:{_ANY_WEEKDAY}),?\s*$")
_CLOCK_NEXT = _compile(rf",?\s+(?:{_AT})\s+\d")
_WEEKDAY = _compile(
    rf"\b(?:(?P<last>{_all('last')})\s+)?(?:(?P<every>{_all('every')})\s+)?"
    rf"(?:(?P<next>{_all('next')})\s+)?"
    rf"(?:(?P<on>{_all('on')})\s+)?(?:(?P<next2>{_all('next')})\s+)?"
    rf"(?P<wd>{_ANY_WEEKDAY})(?P<plural>s)?\b(?:\s+(?:(?P<next3>{_NEXT_AFTER})"
    rf"|(?P<last2>{_LAST_AFTER})(?!\s+ma[ñn]ana)))?"
    rf"|\b(?P<pt_on>{_PT_SHORT_AFTER})\s+(?P<pt>{_PT_SHORT})(?:-feira)?\b"
)
_RELATIVE = _compile(
    rf"(?P<tonight>\b(?:{_all('tonight')})\b)"
    rf"|(?P<morning>\b(?:{_all('this_morning')})\b)"
    rf"|(?P<after>\b(?:{_all('after_tomorrow')})(?![\w-]))"
    rf"|(?P<tomorrow>(?<![\w-])(?:{_all('tomorrow')})(?![\w-]))"
    rf"|(?P<today>(?<![\w-])(?:{_all('today')})(?![\w-]))"
)
#: The word after an hour that makes it a clock time: German "Uhr", Dutch "uur", French
#: "heures" / "h", Spanish and Portuguese "horas".
_HOUR_WORDS = "uhr|uur|heures?|horas|h"
#: A clock time: "um 8:15", "18 Uhr", "à 6h10", "a las 7 de la tarde", "alle 9", "om 10 uur".
_CLOCK = _compile(
    rf"\b(?:(?P<at>{_AT})\s+)?(?P<h>[0-2]?\d)"
    rf"(?:(?P<sep>:|\.|h\s?)(?P<m>[0-5]\d)|\s?(?P<hw>{_HOUR_WORDS})(?:\s?(?P<m2>[0-5]\d))?)?"
    rf"(?!\w)(?!\s*(?:%|€|\$|km|kg|m\b|min|minutes|minuten|minutos|minuti))"
    rf"(?:\s+(?:(?P<pm>{_all('pm')})|(?P<am>{_all('am')})))?"
)
#: The cheap gate, as a set of words (a regex of every day word costs ~0.1 ms a turn): the
#: letters of every weekday, month and relative-day word, with the plural weekdays; function
#: words ("ce", "de", "la") are left out, the rarer word of a phrase gates it.
_LETTERS = re.compile(r"[^\W\d_]+")
#: Months spelled as in English ("April", "August") gate an English turn: German "15. April"
#: passes by its ordinal dot (`_ARTICLE_GATE`).
_ENGLISH_MONTHS = frozenset(m.lower() for m in _EN_MONTHS)
_GATE_WORDS = frozenset(
    word
    for field in ("weekdays", "months", "today", "tomorrow", "after_tomorrow", "tonight",
                  "this_morning")
    for lang in _LANGUAGES.values()
    for alternation in (getattr(lang, field) if isinstance(getattr(lang, field), tuple)
                        else (getattr(lang, field),))
    for found in _LETTERS.findall(_loose(alternation).replace("\\s", " "))
    for word in (found, found + "s")
    if len(found) >= 4 and found not in _ENGLISH_MONTHS
) | frozenset(_LETTERS.findall(_PT_SHORT))  # fmt: skip
#: A day number told by its article alone: "den 15.", "le 3 à 9h" (`_ARTICLE_DAY`).
_ARTICLE_GATE = _compile(
    rf"\b(?:den|am)\s+[0-3]?\d\.(?!\d)"
    rf"|\b(?:{_all('day_article')})\s+[0-3]?\d(?:er|e|º|°|ª)?,?\s+(?:{_AT})\s+\d"
    rf"|\b[0-3]?\d\.\s+(?:{_ANY_MONTH})\b"
)


def _has_day_word(text: str) -> bool:
    if not _GATE_WORDS.isdisjoint(_LETTERS.findall(text.lower())):
        return True
    return any(c.isdigit() for c in text) and _ARTICLE_GATE.search(text) is not None


@lru_cache(maxsize=4096)
def in_english(text: str) -> str:
    """`text` with its non-English day words written as English date words (module doc);
    the same string when it has none. A function of the text only."""
    if not _has_day_word(text):
        return text
    spans: list[tuple[int, int, str]] = []

    def add(start: int, end: int, words: str) -> None:
        if not any(s < end and start < e for s, e, _ in spans):
            spans.append((start, end, words))

    for m in _DAY_MONTH.finditer(text):
        if (words := _day_month(m, text)) is not None:
            add(m.start(), m.end(), words)
    for m in _WEEKDAY.finditer(text):
        if (words := _weekday(m, text)) is not None:
            add(m.start(), m.end(), words)
    for m in _RELATIVE.finditer(text):
        if (words := _relative(m, text)) is not None:
            add(m.start(), m.end(), words)
    for m in _ARTICLE_DAY.finditer(text):
        day = int(m["d"] or m["d2"])
        # Alone, "le 3" is a day only with its clock ("le 3 à 9h"); German "den 15." says so
        # by its ordinal dot.
        alone = m["d2"] and _CLOCK_NEXT.match(text, m.end()) is None
        if 1 <= day <= 31 and not (alone and not spans):
            add(m.start(), m.end(), f"the {day}{_suffix(day)}")
    if not spans:
        return text  # a month without its day, a name, the morning: nothing dated
    for m in _CLOCK.finditer(text):
        if (words := _clock(m)) is not None:
            add(m.start(), m.end(), words)
    out, last = [], 0
    for start, end, words in sorted(spans):
        out += [text[last:start], words]
        last = end
    out.append(text[last:])
    return "".join(out)


def _index(name: str, table: dict[int, str]) -> int:
    low = name.lower()
    for i, alternation in table.items():
        if low in alternation.split("|"):
            return i
    raise KeyError(name)


def _day_month(m: re.Match[str], text: str) -> str | None:
    month_word = m["month"].lower()
    day = int(m["d"])
    marked = (
        bool(m["art"] or m["de"])
        or re.search(r"\d[.º°ª]|\der\b", m.group(0)) is not None
        or _AFTER_WEEKDAY.search(text, 0, m.start()) is not None  # "jeudi 15 mai"
    )
    if _unaccented(month_word) in _MARKED_MONTHS and not marked:
        return None  # "3 mars bars", "15 Mai Tais"
    if not 1 <= day <= 31:
        return None
    month = _EN_MONTHS[_index(month_word, _MONTH_OF)]
    return f"{day} {month} {m['y']}" if m["y"] else f"{day} {month}"


def _weekday(m: re.Match[str], text: str) -> str | None:
    if m["pt"]:
        day = _EN_WEEKDAYS[
            [_unaccented(d) for d in _PT_SHORT_DAYS].index(_unaccented(m["pt"]).lower())
        ]
        return f"on {day}"
    said = m["wd"]
    if said.lower() in _NAME_DAYS and said[0].isupper() and not (m["on"] or m["every"]):
        return None  # "lunch with Domenica": a name
    if m.start("wd") == m.start() and _ENGLISH_DETERMINER.search(text, 0, m.start()):
        return None  # "moved over to the Lundi": a name
    if said.lower() == "mardi" and re.match(r"\s+gras\b", text[m.end() :], re.I):
        return None  # Mardi Gras, the festival
    day = _EN_WEEKDAYS[_index(said, _WEEKDAY_OF)]
    if m["last"] or m["last2"]:
        return f"last {day}"  # "seit Sonntag": the day behind, where something began
    every = m["every"] or m["plural"]
    if every and every.lower() in _HABITUAL_ARTICLES and _DAY_AFTER_WEEKDAY.match(text, m.end()):
        every = None  # "le jeudi 15 mai", "il giovedì 15": that Thursday, not every one
    if every:
        return f"every {day}"
    if m["next"] or m["next2"] or m["next3"]:
        return f"next {day}"
    return f"on {day}"


def _relative(m: re.Match[str], text: str) -> str | None:
    if m["tonight"]:
        return "tonight"
    if m["morning"]:
        return "this morning"
    if m["after"]:
        return "the day after tomorrow"
    if m["today"]:
        return "today"
    said = m["tomorrow"]
    if _MORNING_BEFORE.search(text[max(0, m.start() - 12) : m.start()]):
        return None  # "heute Morgen", "esta mañana": the morning
    if said[0].isupper() and said.lower() == "morgen" and m.start() > 0:
        before = text[: m.start()].rstrip()
        if before and before[-1] not in ".!?:\n":
            return None  # German capitalises the noun "Morgen" (morning), not "morgen"
    return "tomorrow"


def _clock(m: re.Match[str]) -> str | None:
    hour = int(m["h"])
    minute = m["m"] or m["m2"]
    if not (m["at"] or minute or m["hw"]):
        return None  # a bare number: no clock
    if m["sep"] and m["sep"] != ":" and not (m["at"] or m["hw"]):
        return None  # "15.10" (a date, a decimal), "2h30" (a duration) as well as a time
    if m["hw"] and m["hw"].lower() == "h" and not (m["at"] or minute):
        return None  # "2h": two hours, as well as two o'clock
    if hour > 23:
        return None
    if m["pm"] and hour < 12:
        hour += 12
    if m["am"] and hour == 12:
        hour = 0
    if minute is None and not m["hw"] and not (m["pm"] or m["am"]):
        return f"at {hour}"  # a bare hour: `clock_hours` reads which half of the day
    return f"at {hour}:{minute or '00'}"


def _suffix(day: int) -> str:
    return {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}.get(day, "th")
