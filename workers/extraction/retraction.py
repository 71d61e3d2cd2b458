"""Retractions: "the dog thing is dead", "scrap that", "forget I mentioned it".

A retraction marks the facts of a slot retracted (paper §3.3, A.9, Appendix K: the
retraction filter scans for markers like "plan is dead", "scrapped"), so it is only as good
as the slot it names. The target is resolved in this order:

1. a pronoun ("it", "that", none) → the most recent plan-like fact of this turn, else of the
   conversation context (newest first);
2. a noun phrase ("the ubc thing") → the plan-like fact whose slot or text shares the most
   words with it, the most recent on a tie (pet words compare by species: "dog" ~ "puppies");
3. otherwise the slot that phrase would have been given (`slots.guess_slots`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, denied_before, subject_is_user, tentative
from workers.extraction.draft import Draft
from workers.extraction.lexicon import HOBBIES, LANGUAGES, PETS, words
from workers.extraction.own_withdrawal import denies_withdrawal as denies_withdrawal
from workers.extraction.own_withdrawal import others_plan, voiced_span
from workers.extraction.patterns_plans import PROJECT_HEADS
from workers.extraction.slots import guess_slots, is_plan_slot

_I = re.IGNORECASE
_NP = r"(?:the|my|our|that|this|his|her)\s+[\w' -]{1,40}?"
_END = r"(?=\s*(?:$|[,.;!?:]|\b(?:because|since|as|for\s+now|then|now|too|though|lol|after\s+all"
_END += r"|anyway|anyways|altogether|completely|entirely)\b))"
#: What a plan's verdict says of it: it will not take place.
_VERDICT = (
    r"(?:officially\s+|totally\s+|completely\s+|definitely\s+|basically\s+|now\s+)?(?:dead"
    r"|off(?!\s+\w)|done\s+for|not\s+happening|cancell?ed|scrapped|a\s+no-?\s?go|history"
    r"|called\s+off|shelved|axed|nixed)\b"
)
_MARKERS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, _I)
    for p in (
        rf"\b(?P<t>{_NP})(?:\s+(?:thing|plan|idea|project|stuff))?\s+(?:is|'s|was|are|has\s+been)"
        r"\s+(?:officially\s+|totally\s+|completely\s+|definitely\s+|basically\s+|now\s+)?(?:dead"
        r"|off(?!\s+\w)|done\s+for|not\s+happening|cancell?ed|scrapped|a\s+no-?\s?go|finished"
        r"\s+before\s+it\s+(?:began|started)|history|toast|called\s+off|shelved|axed)\b",
        r"\b(?:scrap|scrapping|scrapped|scratch|ditch|ditching|ditched|nix|nixed|shelve|shelving"
        r"|abandon|abandoned|abandoning|cancel|cancell?ing|cancell?ed|call\s+off|calling\s+off"
        rf"|called\s+off)\s+(?P<t>it|that|this|everything|{_NP}){_END}",
        rf"\bcall(?:ed|ing)?\s+(?P<t>it|that|{_NP})\s+off\b",
        r"\bforget\s+(?:(?:that\s+)?i\s+(?:ever\s+)?(?:mentioned|said|brought\s+up|told\s+you)"
        r"(?:\s+(?:it|that|anything))?(?:\s+about\s+(?P<t>[^,.;!?]+)|\s+(?P<t3>(?:the|my|our)\s+"
        r"[^,.;!?]+|(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?))?|about\s+(?P<t2>it|that|"
        rf"{_NP}){_END})",
        rf"\b(?P<t>{_NP}|it|that)\s+(?:fell\s+through|(?:was|got|has\s+been|is|have\s+been|were"
        r"|just\s+got)\s+(?:officially\s+)?(?:cancell?ed|called\s+off|scrapped|axed|nixed"
        r"|shelved|scratched))\b",
        rf"\b(?P<t>{_NP}|it|that)\s+(?:is|'s|isn't|is\s+not|ain't)\s+(?:not\s+)?happening"
        r"(?:\s+(?:anymore|any\s+more|after\s+all))?\b",
        r"\bchanged\s+(?:my|our)\s+minds?\b(?:\s+(?:about|on)\s+(?P<t>[^,.;!?]+))?",
        r"\bdecided\s+(?:against|not\s+to)\s+(?P<t>[^,.;!?]+)",
        r"\b(?:no\s+longer|not|aren't|isn't|won't\s+be)\s+(?:planning\s+(?:to|on)|going\s+(?:to|on)"
        r"|gonna|getting|adopting|buying|doing|building|applying\s+(?:to|for)|going\s+ahead\s+with)"
        r"\s+(?P<t>[^,.;!?]+?)\s+(?:anymore|any\s+more|after\s+all)\b",
        r"\b(?:never\s*mind|nvm)\b(?:\s+(?:about\s+)?(?P<t>(?:the|my|our)\s+[^,.;!?]+))?",
        r"\b(?:gave|giving|give|given)\s+up\s+on\s+(?P<t>[^,.;!?]+)",
        r"\b(?:pulled|backed|backing|pulling)\s+out\s+of\s+(?P<t>[^,.;!?]+)",
        # Guarded in `find`: only a plan-like target ("dropping the cabin plan", not "dropped
        # the kids off"; "no more Japan trip", not "no more coffee").
        rf"\b(?:dropping|dropped|drop|no\s+more)\s+(?P<t>{_NP}|[\w'-]+(?:\s+[\w'-]+){{0,3}}?){_END}",
        rf"\b(?P<t>{_NP})\s+(?:is|'s|was)\s+(?:now\s+)?off\s+the\s+(?:table|cards)\b",
        # "The exchange? not happening anymore", "the cabin? dead", "My masters? scrapped"
        rf"^(?P<t>{_NP})\?\s+(?:(?:it's|that's|it\s+is|that\s+is|it\s+was|that\s+was)\s+)?"
        r"(?:not\s+happening|dead|off|over|cancell?ed|scrapped|called\s+off|shelved|history"
        r"|a\s+no-?\s?go|not\s+going\s+ahead|never\s+happening|done\s+for)\b",
        # A verdict that the plan will not take place (paper §3.3/Appendix K: "plan is dead",
        # "scrapped"): "the reno won't happen", "the camp isn't going ahead".
        rf"\b(?P<t>{_NP}|it|that)(?:['’]s|\s+(?:is|was|are))?\s+(?:(?:just|simply|definitely)\s+)?"
        r"(?:(?:won't|wont|will\s+not|isn't|isnt|is\s+not|ain't|not|never)\s+(?:going\s+to"
        r"|gonna)\s+happen(?!\s+to\b)|(?:won't|wont|will\s+not|will\s+never)\s+happen(?!\s+to\b)"
        r"|(?:(?:is|are|'s)\s+not|isn't|isnt|aren't|won't\s+be|(?:is|'s)\s+no\s+longer)"
        r"\s+going\s+ahead)\b",
        # The verdicts of the first marker with a contracted copula: "the cabin's dead".
        rf"\b(?P<t>{_NP})['’]s\s+(?:officially\s+|totally\s+|completely\s+|definitely\s+"
        r"|basically\s+|now\s+)?(?:dead|off(?!\s+\w)|done\s+for|not\s+happening|cancell?ed"
        r"|scrapped|a\s+no-?\s?go|history|toast|called\s+off|shelved|axed)\b",
        # The same verdicts on a plan named without a determiner, as chat drops it ("husky
        # lakes camp is dead", "garage conversion got called off"): clause-initial only, and
        # guarded like the weak markers (a plan-like name: "battery is dead" is no plan).
        rf"^(?:(?:ok|okay|so|well|welp|yeah|update|anyway|sadly|annoyingly)[:,]?\s+)*"
        r"(?!(?:the|my|our|that|this|his|her|their|it|its)\b)"
        r"(?P<t>[\w'-]+(?:\s+[\w'-]+){0,3}?)(?:\s+(?:thing|stuff|(?P<named>plan|idea|project)))?"
        rf"(?:\s+(?:is|was|are|has\s+been|have\s+been|got|just\s+got)|['’]s(?:\s+been)?)\s+{_VERDICT}"
        r"|^(?!(?:the|my|our|that|this|his|her|their|it|its)\b)(?P<t2>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+fell\s+through\b",
        # The cancelling verb family, idioms included (the user's verb): "pulled the plug on
        # the podcast", "knocked the bakery on the head", "binned the reno".
        r"\b(?:pull(?:ed|ing)?\s+the\s+plug\s+on|knock(?:ed|ing)?\s+(?P<t2>[^,.;!?]+?)\s+on\s+the"
        r"\s+head|(?:binned|binning|dumped|dumping|killed|killing|canned|canning)(?=\s+(?:the|my|our)"
        rf"\b))\s*(?P<t>{_NP}|it|that)?{_END}",
        # "the kayak trip isn't on anymore", "the party's not on": what was on is no longer.
        rf"\b(?P<t>{_NP})(?:['’]s\s+not|\s+(?:isn't|isnt|is\s+not|is\s+no\s+longer|aren't"
        r"|are\s+not|are\s+no\s+longer))\s+on(?:\s+(?:anymore|any\s+more|after\s+all))?"
        r"(?=\s*(?:$|[,.;!?]))",
        # An imperative "forget the puppy", "ok forget the road trip" (plan-like only).
        r"^(?:(?:ok|okay|so|just|yeah|actually|right)[,]?\s+)*forget\s+(?:all\s+)?"
        rf"(?P<t>(?:the|my|our)\s+[\w' -]{{1,40}}?){_END}",
        # Round 26 — the user's own earlier words set aside, whatever the verb of setting
        # aside and however the words are named: "ignore what I said about the loft",
        # "scratch everything I told you about Porto", "disregard the bit I wrote on the
        # course" (§3.3: the user's explicit retraction of their own statement).
        r"\b(?:forget|ignore|disregard|scratch|strike)\s+(?:(?:what|everything|anything|all"
        r"|the\s+(?:part|bit|thing|stuff))\s+(?:that\s+)?(?:i|we)\s+(?:ever\s+|just\s+)?(?:said"
        r"|told\s+you|mentioned|wrote|brought\s+up)(?:\s+(?:about|on|re|regarding)\s+"
        r"(?P<t>[^,.;!?]+))?|the\s+(?:part|bit|stuff)\s+(?:about|on|re)\s+(?P<t2>[^,.;!?]+))",
        # "no longer" says the intent has ended by itself, no "anymore" needed: "I'm no
        # longer planning to sell the flat", "we're no longer going ahead with the loft".
        r"\bno\s+longer\s+(?:planning\s+(?:to|on)|intending\s+to|going\s+ahead\s+with"
        r"|set\s+on|keen\s+on)\s+(?P<t>[^,.;!?]+)",
        # Verdicts of a plan that will not go ahead said as a state: "the loft idea is
        # over", "the MBA is on hold for good", "the sale is a non-starter" (plan-like or a
        # named plan only: "the match is over" reports an outcome).
        rf"\b(?P<t>{_NP})(?:\s+(?P<named>thing|plan|idea|project))?(?:\s+(?:is|was|are|has"
        r"\s+been)|['’]s)\s+(?:(?:now|officially|definitely)\s+)?(?:a\s+(?:non-?\s?starter"
        r"|dead\s+duck|write-?\s?off|lost\s+cause)|out\s+of\s+the\s+question|(?:on\s+(?:hold|ice)"
        r"|parked)\s+(?:for\s+good|indefinitely|permanently))(?![\w-])"
        rf"|\b(?P<t2>{_NP}\s+(?P<named2>thing|plan|idea|project))(?:\s+(?:is|was)|['’]s)\s+"
        r"(?:(?:now|officially|definitely|well\s+and\s+truly)\s+)?over"
        r"(?!\s+(?:to|there|here|with|at|for)\b)",
        # The cancelling idioms of walking away from a plan, the user's verb: "I bailed on
        # the half marathon", "we walked away from the house sale", "let go of the Leeds
        # plan", "crossed the camping trip off" (a plan-like or named plan only: "let go of
        # my anger", "bailed on my friends" give up no plan).
        r"\b(?:bail(?:ed|ing|s)?\s+(?:on|out\s+of)|let(?:ting)?\s+go\s+of|walk(?:ed|ing|s)?"
        r"\s+away\s+from|opt(?:ed|ing|s)?\s+out\s+of)\s+"
        rf"(?P<t>{_NP}(?:\s+(?P<named>thing|plan|idea|project))?){_END}"
        rf"|\bcross(?:ed|ing)?\s+(?P<t2>{_NP}(?:\s+(?P<named2>thing|plan|idea|project))?)\s+off"
        r"(?!\s+(?:to|at|with)\b)",
        # A cancelling participle after a contracted perfect: "the trip's been called off",
        # "it's been scrapped".
        rf"\b(?P<t>{_NP}|it|that)['’]s\s+been\s+(?:officially\s+)?(?:cancell?ed|called\s+off"
        r"|scrapped|axed|nixed|shelved)\b",
        # "no puppy after all", "no Lisbon trip anymore": the plan denied outright (plan-like
        # only: "no coffee anymore" is a habit's change, not a plan given up).
        r"(?:^|[,;:]\s*|\b(?:so|then|ok|okay|yeah|well)\s+)no\s+(?P<t>[\w'-]+(?:\s+[\w'-]+){0,3}?)"
        r"\s+(?:after\s+all|anymore|any\s+more)" + _END,
        # Idioms whose verb itself sets a plan aside, the user's verb: "we're giving Vienna a
        # miss", "put a line through the trip", "I've gone off the idea of a campervan",
        # "we've gone cold on the loft", "parking the dog idea for good", "the trip won't go
        # ahead", "the Vienna trip no longer stands".
        r"\bgiv(?:e|es|ing|en)\s+(?P<t>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+a\s+miss\b"
        rf"|\bput(?:ting)?\s+a\s+line\s+through\s+(?P<t2>{_NP}|it|that){_END}"
        # ("gone off" only with "the idea of": "gone off coffee" is a taste that changed,
        # "gone off to college" a departure)
        r"|\bgone\s+(?:off\s+the\s+idea\s+of|cold\s+on(?:\s+the\s+idea\s+of)?)\s+"
        r"(?P<t3>[^,.;!?]+)"
        rf"|\bpark(?:ed|ing)?\s+(?P<t4>{_NP}\s+(?:thing|plan|idea|project)|it|that)\s+"
        r"(?:for\s+good|indefinitely|permanently)\b"
        rf"|\b(?P<t5>{_NP}|it|that)\s+(?:won['’]t|wont|will\s+not|will\s+never|(?:is|'s)\s+not"
        r"\s+going\s+to|isn['’]t\s+going\s+to)\s+go\s+ahead\b"
        rf"|\b(?P<t6>{_NP}\s+(?:thing|plan|idea|project|trip|booking))\s+no\s+longer\s+stands\b"
        rf"|\b(?:set|setting|sets|put|putting|puts|laid|lay|laying)\s+(?P<t7>{_NP}|it|that)\s+"
        r"(?:aside|to\s+one\s+side)\s+(?:for\s+good|permanently|indefinitely)\b",
    )
)
#: The named groups a marker's target may sit in (alternatives of one marker).
_TARGETS = ("t", "t2", "t3", "t4", "t5", "t6", "t7")
#: The verdicts that the plan will not take place (a target named before the verdict).
_VERDICTS = frozenset({15, 16})
#: Only for a plan-like target: the weak marker ("dropping …", "no more …"), the verdicts
#: added in round 5 ("my grandpa's dead", "the sun won't happen to rise" are no plans) and
#: a bare name's verdict.
_GUARDED = frozenset({12, 17, 19, 20, 23, 24, 26}) | _VERDICTS
#: Markers whose verb must be the user's ("I decided against …", "we gave up on …").
_SPEAKER_MARKERS = frozenset({7, 8, 10, 11, 12, 18, 22, 24})
#: Markers that are the user's cancelling verb: "we haven't abandoned the plan", "I nearly
#: ditched it", "we didn't call it off" withdraw nothing (`clauses.denied_before`).
_VERB_MARKERS = frozenset({1, 2, 7, 8, 10, 11, 12, 20, 21, 24, 27})
_OTHERS = re.compile(r"(?:your|his|her|their)\b", _I)
_PRONOUNS = frozenset(
    words(
        "it that this everything the plan the idea that plan that idea the whole thing all that "
        "this plan"
    )
) | {"the plan", "the idea", "that plan", "that idea", "the whole thing", "all that", ""}
_FILLER = frozenset(
    words(
        "the my our that this his her a an thing plan idea project stuff whole it anymore after "
        "all get getting go going to for of about"
    )
)


#: A topic named first and then spoken of with a pronoun — a closed grammatical construction,
#: not a wording: left dislocation ("the reno, scrap it", "Lisbon, forget it") and a topic
#: frame ("as for the bakery, we dropped it", "about the trip: cancel it"; or said alone
#: before: "About the cabin. Scrap it."). A retraction's pronoun in its scope is the topic.
_TOPIC_NP = (
    r"(?:the|my|our|that|this)\s+[\w'-]+(?:\s+[\w'-]+){0,3}?"
    r"|(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+){0,2}"
)
_FRAME = re.compile(
    r"^(?:about|as\s+for|as\s+to|regarding|concerning|re:)\s+(?P<topic>(?:(?:the|my|our|that"
    r"|this)\s+)?[\w'-]+(?:\s+[\w'-]+){0,4}?)\s*(?P<end>[:,;]|[.!]?\s*$)",
    _I,
)
_DISLOCATED = re.compile(rf"^(?P<topic>{_TOPIC_NP})\s*,\s+", _I)
#: A dislocated "topic" that is a discourse particle or a manner adverb names nothing
#: ("Honestly, forget it", "Ok, scrap that").
_PARTICLE = re.compile(
    r"^(?:(?:so|well|oh|ok|okay|ah|um|uh|hey|yeah|yes|yep|no|nah|nope|anyway|anyways|also|and"
    r"|but|lol|haha|omg|wow|ugh|look|listen|please|fine|right|alright|sorry|thanks|man|dude"
    r"|seriously|[a-z]+ly)\b\s*)+$",
    _I,
)
#: The imperative "forget it" said of a topic ("Modena, forget it"); alone it is a dismissal
#: ("oh forget it, I'll look it up"), so it counts only with a topic (`_topic_before`), and
#: only as the imperative that opens its clause ("Porto, I'll never forget it" is a memory).
_FORGET_IT = re.compile(
    r"(?:^|,\s*)(?:just\s+)?forget\s+(?:about\s+)?(?P<t>it|that)\b(?!\s+(?:i|we)\b)", _I
)


#: What a sentence-opening word before a comma often is instead of a topic — a closed
#: grammatical family, not a wording: time adverbials ("Today,", "This morning,", "Last
#: week,"), discourse connectives ("That said,", "Then,"), interjections ("Cool,", "Tbh,")
#: and vocatives ("Mum,", "Guys,"). None of them names a plan.
_TIME_WORD = (
    r"morning|afternoon|evening|night|week|weekend|month|year|time|day|summer|winter|spring"
    r"|autumn|fall|monday|tuesday|wednesday|thursday|friday|saturday|sunday"
)
_NOT_A_TOPIC = re.compile(
    r"^(?:(?:today|tonight|yesterday|tomorrow|now|then|later|earlier|lately|recently|finally"
    r"|meanwhile|besides|still|again|instead|otherwise|however|also|anyhow|plus"
    rf"|(?:(?:this|that|last|next|every|each|one|the\s+other)\s+)?(?:{_TIME_WORD})"
    r"|(?:that|this)\s+said|having\s+said\s+that|in\s+the\s+end|at\s+the\s+end\s+of\s+the\s+day"
    r"|after\s+all|of\s+course|either\s+way|all\s+in\s+all|in\s+any\s+case|same|the\s+same"
    r"|cool|great|nice|awesome|sweet|damn|dang|shit|crap|jeez|gosh|geez|welp|hmm+|huh|meh|sadly"
    r"|tbh|tbf|imo|imho|ngl|fyi|btw|idk|lmao|rofl|bummer|whatever|sure|true|exactly|indeed"
    r"|guys|folks|everyone|everybody|all|mate|mates|bro|sis|babe|baby|honey|hun|love|buddy"
    r"|pal|friend|friends|team|doc|sir|madam|ma'am|mum|mom|mama|mommy|mummy|dad|daddy|papa"
    r"|ma|pa|grandma|grandpa|gran|granny|nan|nana|grandad|granddad)\b[\s!.]*)+$",
    _I,
)
#: A topic whose head names a person is resumed by "he/she/they", not by "it": "My sister,
#: she called it off" says who withdrew the plan, not which one.
_PERSON_HEAD = re.compile(
    r"\b(?:sister|brother|mum|mom|mother|dad|father|son|daughter|grandma|grandmother|grandpa"
    r"|grandfather|aunt|auntie|uncle|cousin|niece|nephew|wife|husband|partner|boyfriend"
    r"|girlfriend|fiance|fiancee|fiancé|fiancée|friend|boss|manager|colleague|coworker"
    r"|flatmate|roommate|housemate|neighbou?r|kids?|parents?|family|folks|landlord|doctor"
    r"|therapist|teacher|coach|team|guys|people)s?$",
    _I,
)


def fragment_topic(sentence: str) -> str | None:
    """The topic of a sentence that only frames one ("About the cabin.", "As for the reno:"):
    the next sentence's pronoun retraction is about it."""
    m = _FRAME.match(sentence.strip())
    if m is None or m["end"] in (",", ";"):
        return None
    return _named(m["topic"])


def with_topic(draft: Draft, topic: str | None) -> Draft:
    """`draft` with its pronoun target replaced by the `topic` in force, if any."""
    if topic is None or draft.kind != "retraction" or not is_pronoun(draft.target or ""):
        return draft
    return replace(draft, target=topic, topical=True)


def _named(topic: str) -> str | None:
    topic = topic.strip()
    if not topic or is_pronoun(topic) or _PERSON_HEAD.search(topic):
        return None
    return None if _PARTICLE.match(topic) or _NOT_A_TOPIC.match(topic) else topic


def _topic_before(clause: Clause, start: int) -> str | None:
    """The dislocated or framed topic of `clause`'s sentence, said before position `start`
    of the clause."""
    sentence = clause.sentence_text or clause.text
    at = max(_offset(clause), 0) + start
    for pattern in (_FRAME, _DISLOCATED):
        m = pattern.match(sentence)
        if m is not None and m.end("topic") <= at:
            return _named(m["topic"])
    return None


def find(clause: Clause) -> list[Draft]:
    """Retraction markers in one clause; their targets are resolved by the extractor."""
    out: list[Draft] = []
    found = [(i, m) for i, pattern in enumerate(_MARKERS) for m in pattern.finditer(clause.text)]
    found += [(-1, m) for m in _FORGET_IT.finditer(clause.text)]
    for index, m in found:
        groups = m.groupdict()
        target = next((g for k in _TARGETS if (g := groups.get(k))), "").strip()
        topic = None
        if is_pronoun(target):
            topic = _topic_before(clause, m.start())
            if topic is None and index < 0:
                continue  # "forget it" without a topic: a dismissal
            target = topic or target
        if _OTHERS.match(target) or others_plan(m.group(0)):
            continue  # "don't give up on your dreams", "my neighbour's idea is dead": not ours
        if voiced_span(clause.sentence_text or clause.text, *_in_sentence(clause, m)):
            continue  # "my wife thinks the trip is off", "nobody said it's dead" (§3.3, A.9)
        if index in _GUARDED and not (
            groups.get("named") or groups.get("named2") or _plan_like(target)
        ):
            continue
        if _pastime(target):
            continue  # "gave up on Japanese", "gave up on chess": the leisure families
        if index in _SPEAKER_MARKERS and not subject_is_user(clause.text, m.start()):
            continue
        if index in _VERB_MARKERS and denied_before(clause.text, m.start()):
            continue  # "we never abandoned the plan", "I almost ditched it"
        if tentative(clause.sentence_text or clause.text, *_in_sentence(clause, m),
                     within=index in _VERDICTS):  # fmt: skip
            continue  # "if we cancel the trip …", "should I scrap it?": nothing withdrawn
        out.append(
            Draft(
                kind="retraction",
                categories=d.PROJECT,
                slot_key=None,
                value=None,
                update=d.A,
                confidence=d.COMMITTED,
                span=(m.start(), m.end()),
                priority=1,
                target=target,
                negatable=True,
                topical=topic is not None,
            )
        )
    return out


def _in_sentence(clause: Clause, m: re.Match[str]) -> tuple[int, int]:
    """Where a marker found in `clause` sits in the clause's sentence (the question mark
    that makes it tentative may be past the clause's end)."""
    offset = _offset(clause)
    return (m.start(), m.end()) if offset < 0 else (offset + m.start(), offset + m.end())


def _offset(clause: Clause) -> int:
    """Where `clause` starts in its sentence (-1: not found, or no sentence)."""
    return clause.sentence_text.find(clause.text) if clause.sentence_text else -1


def is_pronoun(target: str) -> bool:
    return " ".join(target.lower().split()) in _PRONOUNS


def _words(text: str) -> set[str]:
    words = {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _FILLER}
    return words | {PETS[w] for w in words if w in PETS}


def resolve(
    target: str, candidates: Sequence[tuple[str, str]], topical: bool = False
) -> tuple[str, ...]:
    """The slots a retraction withdraws. `candidates` are (slot, text), newest first.

    A `topical` target (a topic read for the pronoun: "Ghent, forget it") wins only when it
    shares a word with a plan; with plans but none matching, the pronoun's plan is meant (the
    topic was no name of it: "Mum, we cancelled it"); its guessed slot only with no plan at
    all (a later session: "Porto, forget it")."""
    plans = [(slot, text) for slot, text in candidates if is_plan_slot(slot)]
    if is_pronoun(target):
        return (plans[0][0],) if plans else ()
    if best := best_plan(_words(target), plans):
        return (best,)
    if topical and plans:
        return (plans[0][0],)
    return guess_slots(target)


def best_plan(wanted: set[str], plans: Sequence[tuple[str, str]]) -> str | None:
    """The plan (slot, text; newest first) sharing the most of the `wanted` words with its
    slot or text, the newest on a tie; None if none shares one. "Cancel the Japan trip" with
    a Japan and a newer Rome trip planned withdraws Japan: "trip" alone tells them apart not."""
    best, most = None, 0
    for slot, text in plans:
        shared = len(wanted & (_words(slot.replace(".", " ").replace("_", " ")) | _words(text)))
        if shared > most:
            best, most = slot, shared
    return best


def _pastime(target: str) -> bool:
    """A language or hobby named bare: giving it up stops it, it retracts no plan."""
    bare = re.sub(r"^(?:my|the|our)\s+", "", target.lower()).strip()
    bare = re.sub(r"\s+(?:lessons|classes|class|course)$", "", bare)
    return bare in LANGUAGES or bare in HOBBIES


def _plan_like(target: str) -> bool:
    """Is `target` named like a plan (a pet, a trip, a project)? Guards the weak markers."""
    slots = guess_slots(target)
    if not slots or not is_plan_slot(slots[0]):
        return False
    head = slots[0].split(".")[1]
    return not slots[0].startswith("project.") or head in PROJECT_HEADS


#: For the probe's withdrawals (`withdrawal.py`): the same word and plan tests. (Whose
#: withdrawal it is — `denies_withdrawal`, re-exported above — is `own_withdrawal.py`'s: one
#: gate for the markers, the probe and the query-time rule.)
content_words = _words
plan_like = _plan_like
