"""How people state a fact, change it, hedge it, and ask about it (text track, issue 5).

Every kind of fact has at least five natural phrasings for each thing that can happen to it
(first statement, explicit change, implicit mention, hedge, commitment, decision against), so
the conversation is not a template echo and an extractor cannot key on one wording. Gold
edges carry a short third-person statement ("User lives in Porto"), as an extraction model
would write it. Questions are what a user would ask an assistant with memory, in the first
person, with "used to"/"before" forms for change questions (paper Appendix K).

Placeholders: {v} value, {old} previous value, {a_v}/{a_old} with the article.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from schemas.categories import Category

C = Category


def tpl(text: str) -> tuple[str, ...]:
    """Templates separated by '|' (keeps the banks compact and readable)."""
    return tuple(s.strip() for s in text.split("|") if s.strip())


def article(word: str) -> str:
    return ("an " if re.match(r"[aeiouAEIOU8]", word) and not word.startswith("uni") else "a ") + (
        word
    )


def fill(template: str, **values: str) -> str:
    """Render a template; the first letter of the result is upper-cased."""
    extra = {f"a_{k}": article(v) for k, v in values.items() if v}
    out = template.format(**values, **extra)
    return out[:1].upper() + out[1:]


@dataclass(frozen=True, slots=True)
class Kind:
    """A slot-valued kind of fact (state that is replaced over time, paper Appendix F)."""

    name: str
    category: Category
    slot: str
    gold: str
    say: tuple[str, ...]
    ask: tuple[str, ...]
    change: tuple[str, ...] = ()
    gold_change: str = ""
    implicit: tuple[str, ...] = ()
    soft: tuple[str, ...] = ()
    gold_soft: str = ""
    commit: tuple[str, ...] = ()
    stay: tuple[str, ...] = ()
    gold_stay: str = ""
    #: Change questions ("used to", "before"): {v} is the value that replaced the answer.
    ask_before: tuple[str, ...] = ()
    numeric: bool = False


K = Kind
CITY = K(
    "city", C.IDENTITY_SELF_CONCEPT, "user.current_city", "User lives in {v}",
    say=tpl("I live in {v}|I'm based in {v}|we've been living in {v} for a few years now|"
           "home is {v} these days|I've been in {v} since uni, love it here"),
    change=tpl("We finally moved to {v}!|Just relocated to {v} for work|I live in {v} now, the "
              "move from {old} went fine|we left {old} last month, we're in {v} now|settled "
              "into the new flat in {v}, glad to be out of {old}"),
    gold_change="User moved from {old} to {v}",
    implicit=tpl("walked along the river here in {v} this morning|my neighbours here in {v} are "
                "so friendly|it's been raining nonstop here in {v}|the trams here in {v} are "
                "always packed at 8|found a great bakery round the corner from my place in {v}"),
    soft=tpl("I'm thinking about moving to {v}|we might move to {v} next year|considering "
            "relocating to {v}, nothing decided|maybe we'll move to {v} at some point, not "
            "decided yet|I've been toying with the idea of moving to {v}"),
    gold_soft="User is considering moving to {v}",
    commit=tpl("We did it, we moved to {v}!|It's official, we live in {v} now|the move to {v} "
              "happened, boxes everywhere|we finally made the move to {v}|just relocated to "
              "{v}, still unpacking"),
    stay=tpl("we decided against moving to {v}, we're staying in {old}|not moving after all, "
            "{old} is home|we talked it through and we're staying in {old}|we're not moving "
            "to {v} in the end, staying in {old}|staying put in {old}, {v} was too expensive"),
    gold_stay="User still lives in {old} (decided against moving to {v})",
    ask=tpl("Where do I live?|What city am I based in now?|Which city do I live in these days?|"
           "Remind me where I'm living at the moment?|What city do I call home right now?"),
    ask_before=tpl("Where did I live before moving to {v}?|What city was I living in before "
                  "{v}?|Which city did I use to live in before {v}?"),
)  # fmt: skip
EMPLOYER = K(
    "employer", C.IDENTITY_SELF_CONCEPT, "user.employer", "User works at {v}",
    say=tpl("I work at {v}|I've been at {v} for a couple of years|I've been working for {v} "
           "for a while now|my job at {v} keeps me busy|I got a job at {v}"),
    change=tpl("I left {old} and joined {v}|Started a new job at {v} on Monday|I accepted an "
              "offer from {v}, so goodbye {old}|I'm at {v} now, handed in my notice at {old} "
              "last month|first week at {v} done! so different from {old}"),
    gold_change="User left {old} and now works at {v}",
    implicit=tpl("my team at {v} is doing a hackathon this week|crazy day at {v}, back-to-back "
                "meetings|the canteen at {v} is honestly decent|my manager at {v} wants the "
                "report by Friday|long shift at {v} today, my feet hurt"),
    soft=tpl("I'm thinking about leaving for {v}|{v} reached out about a role, I might take it|"
            "considering an offer from {v}, not decided yet|maybe I'll apply to {v}, still "
            "thinking|I might switch to {v} next year"),
    gold_soft="User is considering a job at {v}",
    commit=tpl("I took the job at {v}!|I've officially joined {v}|signed with {v}, my first "
              "day was Monday|I'm working at {v} now, decided to take it|I accepted the {v} "
              "offer and started this week"),
    stay=tpl("I turned down {v}, staying at {old}|decided to stay at {old} after all|I'm not "
            "going to {v}, {old} matched the offer|said no to {v}, I'm staying put at {old}|"
            "staying at {old}, the {v} role didn't feel right"),
    gold_stay="User still works at {old} (turned down {v})",
    ask=tpl("Where do I work?|Who's my employer right now?|What company am I working for these "
           "days?|Where am I working at the moment?"),
    ask_before=tpl("Where did I work before {v}?|Which company was I at before joining {v}?|"
                  "Where was I working before I moved to {v}?"),
)  # fmt: skip
ROLE = K(
    "role", C.IDENTITY_SELF_CONCEPT, "user.job_title", "User's job title is {v}",
    say=tpl("I'm {a_v}|I work as {a_v}|my title is {v}|I've been {a_v} for a few years|"
           "as {a_v} I'm on my feet all day"),
    change=tpl("I got promoted to {v}!|I'm {a_v} now|new title: {v}|they made me {v} this "
              "week|I moved up from {old} to {v}"),
    gold_change="User's job title is now {v} (promoted from {old})",
    implicit=tpl("being {a_v} means I sign off the rota now|first performance reviews as "
                "{a_v}, nerve-racking|my new desk as {a_v} is by the window|the {v} training "
                "days are intense|as {a_v} I finally get a say in hiring"),
    ask=tpl("What's my job title?|What position do I hold now?|What's my role at work these "
           "days?"),
    ask_before=tpl("What was my job title before I became {a_v}?|What role did I have before "
                  "{v}?"),
)  # fmt: skip
PARTNER = K(
    "partner", C.RELATIONAL_BONDS, "user.partner", "User's partner is {v}",
    say=tpl("I'm dating {v}|me and {v} have been together like 8 months|my partner {v} is the "
           "best|I've been seeing {v} for a few months|{v} and I have been together a while"),
    change=tpl("{old} and I broke up. I'm seeing {v} now|I'm with {v} now, things with {old} "
              "ended a while back|I've started dating {v}|new relationship: I'm seeing {v}|"
              "me and {old} split, and now there's {v}"),
    gold_change="User's partner is now {v} (broke up with {old})",
    implicit=tpl("{v} and I went hiking for our anniversary|my partner {v} cooked dinner "
                "tonight|date night with {v} was lovely|{v} surprised me with concert tickets, "
                "best partner ever|spent the weekend at {v}'s parents' place"),
    ask=tpl("Who am I dating?|Who's my partner these days?|Am I seeing anyone right now?|"
           "What's my partner's name?"),
    ask_before=tpl("Who was I dating before {v}?|Who was my partner before {v}?"),
)  # fmt: skip
MANAGER = K(
    "manager", C.RELATIONAL_BONDS, "user.manager", "User's manager is {v}",
    say=tpl("my manager is {v}|I report to {v}|{v} is my boss, pretty fair|my boss {v} is "
           "very hands-off|{v} manages our team"),
    change=tpl("we got a new manager, {v}|{old} left, so now I report to {v}|my new boss is "
              "{v}|{v} took over from {old} as my manager|I report to {v} now"),
    gold_change="User's new manager is {v}, replacing {old}",
    implicit=tpl("{v}, my boss, signed off on my leave|had my one-to-one with {v} today|{v} "
                "wants our team to present on Friday|my manager {v} gave me great feedback|"
                "{v} from upstairs is my boss now, very strict"),
    ask=tpl("Who's my manager?|Who do I report to now?|Who's my boss these days?"),
    ask_before=tpl("Who was my manager before {v}?|Who did I report to before {v}?"),
)  # fmt: skip
CAR = K(
    "car", C.FINANCIAL_MATERIAL, "user.car", "User drives {a_v}",
    say=tpl("I drive {a_v}|my car's {a_v}|I've got {a_v}, old but reliable|our {v} does the "
           "school run|I bought {a_v} a while ago"),
    change=tpl("I sold the {old} and got {a_v}|traded in the {old} for {a_v}|new car! {a_v}|"
              "we replaced the {old} with {a_v}|I drive {a_v} now"),
    gold_change="User now drives {a_v} (replaced the {old})",
    implicit=tpl("my {v} is in the shop again|filled up the {v} this morning|someone dinged my "
                "{v} in the parking lot|the {v} handled the snow fine|had the {v} serviced "
                "today"),
    soft=tpl("thinking about getting {a_v}|I might buy {a_v}|maybe {a_v} next, not decided|"
            "we're looking at {a_v}, still deciding|considering {a_v}"),
    gold_soft="User is considering buying {a_v}",
    commit=tpl("picked up our {v} yesterday!|we bought the {v}|I went for it, I drive {a_v} "
              "now|the {v} is ours, sold the old one|new car: we got the {v}"),
    stay=tpl("we're keeping the {old}, the {v} was too pricey|decided against the {v}, sticking "
            "with the {old}|no new car, the {old} still runs fine|not buying the {v} after "
            "all, the {old} stays|we'll keep the {old} a few more years"),
    gold_stay="User still drives the {old} (decided against {a_v})",
    ask=tpl("What car do I drive?|What's my car now?|Which car do I have at the moment?"),
    ask_before=tpl("What car did I have before the {v}?|What did I drive before I got the {v}?"),
)  # fmt: skip
MEDICATION = K(
    "medication", C.HEALTH_WELLBEING, "user.medication", "User takes {v} as daily medication",
    say=tpl("I take {v} every morning|I'm on {v} for my blood pressure|my doctor has me on "
           "{v}|{v} is my daily pill|I've been taking {v} for a while"),
    change=tpl("my doctor switched me to {v}|I'm on {v} now instead of {old}|they changed my "
              "prescription to {v}|no more {old}, I take {v} now|new medication: {v}"),
    gold_change="User's daily medication is now {v} (was {old})",
    ask=tpl("What medication am I on?|Which pills do I take these days?|What am I taking "
           "every day?"),
    ask_before=tpl("What medication was I on before {v}?"),
)  # fmt: skip
STATE_KINDS: dict[str, Kind] = {
    k.name: k for k in (CITY, EMPLOYER, ROLE, PARTNER, MANAGER, CAR, MEDICATION)
}
