"""Everyday conversation volume: one-off facts in every category, small talk, and the
assistant's replies. Nothing here is asked about; it is what buries the facts that are
(paper Appendix C.1: "interleaved noise sessions", AV3 "buried under conversation volume").

Each filler kind pairs ≥ 5 utterances with their gold statements ("say => gold"); `event`
says how its event-time anchor relates to the moment it is said.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.lifecycle.phrasing import C, tpl
from schemas.categories import Category


@dataclass(frozen=True, slots=True)
class FillerKind:
    name: str
    category: Category
    #: AV5 domain it would add members to (skipped when that domain is asked about).
    domain: str
    pairs: tuple[tuple[str, str], ...]
    #: None, "now" (acute, anchored at the telling), "past" (days before), "future".
    event: str | None = None
    numeric: bool = False


def _pairs(text: str) -> tuple[tuple[str, str], ...]:
    out = []
    for item in tpl(text):
        say, gold = item.split("=>")
        out.append((say.strip(), gold.strip()))
    return tuple(out)


F = FillerKind
FILLER_KINDS: tuple[FillerKind, ...] = (
    F(
        "friend",
        C.RELATIONAL_BONDS,
        "",
        _pairs(
            "had coffee with my friend {name} today => User had coffee with their friend {name}|"
            "caught up with {name} over lunch => User caught up with {name} over lunch|{name} "
            "and I went for a long walk => User went for a walk with {name}|{name} helped me "
            "move a wardrobe, what a friend => {name} helped User move a wardrobe|{name} is "
            "going through a rough patch, I'm worried => User is worried about their friend "
            "{name}"
        ),
    ),
    F(
        "family",
        C.RELATIONAL_BONDS,
        "",
        _pairs(
            "called my {rel} this weekend => User called their {rel}|long chat with my {rel} on "
            "the phone => User had a long phone call with their {rel}|my {rel} sent a care "
            "package => User's {rel} sent a care package|video call with my {rel} tonight => "
            "User video-called their {rel}|my {rel} is coming for dinner on Sunday => User's "
            "{rel} is coming for dinner"
        ),
    ),
    F(
        "coworker",
        C.RELATIONAL_BONDS,
        "",
        _pairs(
            "my coworker {name} is leaving next month => User's coworker {name} is leaving|"
            "{name} from work brought in cake => User's coworker {name} brought cake|{name} at "
            "work helped me fix a spreadsheet => User's coworker {name} helped with a "
            "spreadsheet|had lunch with {name} from the office => User had lunch with coworker "
            "{name}|{name}, my colleague, just had a baby => User's colleague {name} had a baby"
        ),
    ),
    F(
        "work_task",
        C.PROJECTS_ENDEAVORS,
        "",
        _pairs(
            "I'm preparing the quarterly report => User is preparing the quarterly report|"
            "working on a presentation about {topic} => User is preparing a presentation about "
            "{topic}|redoing our team's onboarding docs => User is rewriting the team's "
            "onboarding documents|I'm organising the office move => User is organising the "
            "office move|training two new starters this week => User is training two new "
            "starters|sorting out the stock system at work => User is reorganising the stock "
            "system at work"
        ),
    ),
    F(
        "home_project",
        C.PROJECTS_ENDEAVORS,
        "",
        _pairs(
            "I'm repainting the bathroom => User is repainting the bathroom|building a bookshelf "
            "for the hallway => User is building a hallway bookshelf|decluttering the whole "
            "flat, room by room => User is decluttering the flat|making a photo album for my "
            "parents' anniversary => User is making an anniversary photo album|fixing up an old "
            "bike I found => User is restoring an old bike|planting herbs on the balcony => "
            "User is planting a balcony herb garden"
        ),
    ),
    F(
        "meal",
        C.PREFERENCES_HABITS,
        "",
        _pairs(
            "had the best {dish} for lunch today => User had {dish} for lunch|tried a new {dish} "
            "place near work => User tried a new {dish} place|cooked {dish} for dinner, turned "
            "out great => User cooked {dish} for dinner|ordered {dish} tonight, too tired to "
            "cook => User ordered {dish}|{dish} from the market stall again, can't resist => "
            "User bought {dish} at the market"
        ),
    ),
    F(
        "went",
        C.LOGISTICAL_CONTEXT,
        "",
        _pairs(
            "went to {name}'s birthday dinner {past} => User went to {name}'s birthday dinner|"
            "we were at the farmers market {past} => User went to the farmers market|went to a "
            "wedding {past} => User attended a wedding|spent all day at IKEA {past}, never again "
            "=> User went to IKEA|took the kids to the zoo {past} => User took the kids to the "
            "zoo"
        ),
        event="past",
    ),
    F(
        "errand",
        C.OBLIGATIONS,
        "",
        _pairs(
            "the plumber is coming {when} => User has a plumber visit {gold_when}|car service "
            "booked {when} => User's car service is {gold_when}|team offsite {when} => User has "
            "a team offsite {gold_when}|I'm on call {when} => User is on call {gold_when}|"
            "council inspection of the flat {when} => User has a flat inspection {gold_when}|"
            "boiler check {when} => User has a boiler check {gold_when}"
        ),
        event="future",
    ),
    F(
        "ill",
        C.HEALTH_WELLBEING,
        "",
        _pairs(
            "I've got a cold => User has a cold|sprained my ankle playing football => User "
            "sprained their ankle|had a migraine all afternoon => User had a migraine|slept "
            "terribly this week => User has been sleeping badly|came down with the flu => User "
            "has the flu|my back is killing me today => User has back pain"
        ),
        event="now",
    ),
    F(
        "spend",
        C.FINANCIAL_MATERIAL,
        "",
        _pairs(
            "spent {amount} on groceries this week => User spent {amount} on groceries|the "
            "electricity bill came to {amount} => User's electricity bill was {amount}|bought "
            "new running shoes for {amount} => User bought running shoes for {amount}|paid "
            "{amount} for concert tickets => User paid {amount} for concert tickets|car "
            "insurance renewal was {amount} => User's car insurance renewal cost {amount}"
        ),
        numeric=True,
    ),
    F(
        "reading",
        C.INTELLECTUAL_INTERESTS,
        "interest",
        _pairs(
            "read a great article about {topic} => User read an article about {topic}|listening "
            "to a podcast on {topic} => User listened to a podcast on {topic}|finished a book "
            "about {topic} => User finished a book about {topic}|watched a documentary on "
            "{topic} => User watched a documentary on {topic}|went to a talk about {topic} => "
            "User attended a talk about {topic}"
        ),
    ),
    F(
        "leisure",
        C.HOBBIES_RECREATION,
        "hobby",
        _pairs(
            "watched {film} last night => User watched {film}|played board games with friends "
            "on Friday => User played board games with friends|went to a gig on Saturday => User "
            "went to a gig|spent Sunday at the beach => User spent Sunday at the beach|binged a "
            "new series all weekend => User binge-watched a series"
        ),
    ),
    F(
        "misc",
        C.OTHER,
        "",
        _pairs(
            "the weather's been wild lately => User remarked on the wild weather|my neighbour's "
            "dog barks all night => User's neighbour's dog barks at night|traffic was awful "
            "today => User was stuck in traffic|the power went out for an hour => User had a "
            "power cut|there's a new café opening on my street => A new café is opening on "
            "User's street"
        ),
    ),
    F(
        "trait",
        C.IDENTITY_SELF_CONCEPT,
        "",
        _pairs(
            "I'm a total morning person => User is a morning person|I'm pretty introverted, "
            "honestly => User is introverted|I've always been a night owl => User is a night "
            "owl|I'm terrible with directions => User has a poor sense of direction|I'm the "
            "organised one in my family => User is the organised one in their family"
        ),
    ),
    F(
        "todo",
        C.OBLIGATIONS,
        "",
        _pairs(
            "I need to renew my passport => User needs to renew their passport|I promised to "
            "help {name} move => User promised to help {name} move|I owe {name} a birthday "
            "present => User owes {name} a birthday present|have to sort out my pension "
            "paperwork => User needs to do pension paperwork|I must call the bank about my "
            "card => User needs to call the bank about their card"
        ),
    ),
)
#: Category shares of filler, close to the paper's corpus (C.4: Projects 20.7 %, Relational
#: 16.9 %, Obligations 14.2 % the three most frequent; OTHER ≈ 0).
FILLER_WEIGHTS: dict[str, float] = {
    "friend": 6, "family": 5, "coworker": 5, "work_task": 11, "home_project": 9, "meal": 7,
    "went": 6, "errand": 10, "ill": 5, "spend": 6, "reading": 6, "leisure": 6, "misc": 2,
    "trait": 2, "todo": 6,
}  # fmt: skip
FILLER_VALUES: dict[str, tuple[str, ...]] = {
    "rel": tpl("grandma|parents|aunt|uncle|cousin|grandad"),
    "topic": tpl(
        "supply chains|climate adaptation|sleep science|the history of jazz|"
        "cryptography|urban gardening|ancient Egypt|game theory|sourdough chemistry"
    ),
    "dish": tpl(
        "ramen|pho|shakshuka|falafel|sushi|tacos|bibimbap|khachapuri|pad thai|"
        "dumplings|paella|risotto|injera|ceviche|pierogi|banh mi|butter chicken"
    ),
    "film": tpl("Dune|Past Lives|Oppenheimer|Paddington 2|Spirited Away|Parasite|Amélie|Arrival"),
}
#: User turns without a fact (questions, thanks): the extractor must keep them out.
SMALL_TALK = tpl(
    "thanks, that's really helpful!|haha fair enough|ok let me think about that|can you "
    "help me draft an email to a client?|what's a good recipe for a quick dinner?|any tips "
    "for sleeping better?|good morning!|that makes sense, thanks|how do I convert cups to "
    "grams?|tell me a joke, I need one|what should I read next?|can you summarise that "
    "for me?"
)
ASSISTANT = tpl(
    "That sounds great, thanks for sharing!|Got it. Anything else on your mind?|Oh nice, "
    "how are you feeling about it?|Thanks for letting me know.|Interesting! Tell me more "
    "if you like.|Happy to help with that.|That's a lot going on, I hope it goes well.|"
    "Good to hear!|I see. Want me to help plan anything?|Fair enough!|Sure, here's a "
    "suggestion: start small and build from there.|That makes sense."
)
