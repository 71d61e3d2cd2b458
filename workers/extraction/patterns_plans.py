"""Projects & Endeavors and plans: a state machine per project (Table 1 row 5).

`project.<head noun>` moves through started/active → paused → done ("Writing thesis" →
"Thesis defended"), each state a high-confidence replace of the same slot. Plans the user
may later cancel — a pet, building a camp, an application — get a slot too, so that "the dog
thing is dead" (AV7) has something to retract.
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, slug, subject_is_user, trim_phrase
from workers.extraction.draft import Draft
from workers.extraction.lexicon import HOBBIES, PETS, words
from workers.extraction.slots import pet_plan_slot, project_slot

_I = re.IGNORECASE
_DET = r"(?:(?:a|an|my|the|our|this|that|some|another|a\s+new|my\s+new|our\s+new|new)\s+)?"
_OBJ = r"(?P<obj>[^\s,.;!?][^,.;!?]*)"
#: Heads that make "started X" a project rather than a habit or a job (§3.2: the fact).
PROJECT_HEADS = frozenset(
    words(
        "thesis dissertation book novel memoir proposal app website site startup company business "
        "podcast blog channel course degree masters master's phd doctorate renovation remodel "
        "marathon campaign album ep film documentary research paper article grant portfolio game "
        "project camp house extension kitchen bathroom shop bakery restaurant store studio salon "
        "nonprofit charity fundraiser exhibition certification bootcamp apprenticeship internship "
        "mba bachelor's exchange application visa citizenship newsletter garden shed cabin boat "
        "tours tour program programme curriculum library framework prototype invention patent "
        "screenplay script comic zine collection series course thesis mural quilt sculpture "
        "cafe café kiosk stall venture hustle"
    )
)
#: Verbs that make their object a project even outside PROJECT_HEADS — when the object is a
#: determined noun ("working on my online store", not "working on studies").
_STRONG_VERBS = ("working on", "writing", "building", "developing", "launching",
                 "finishing", "finishing up", "wrapping up", "still writing",
                 "designing", "renovating")  # fmt: skip

_START = re.compile(
    r"\b(?:(?:just\s+)?(?:started|starting|began|begun)\s+(?=working\s+on|writing|building"
    r"|developing|designing))?"
    r"(?P<verb>started|starting|begun|began|working\s+on|writing|building|developing"
    r"|finishing(?:\s+up)?|wrapping\s+up|still\s+writing"
    r"|launching|launched|creating|designing|renovating|training\s+for|preparing\s+for"
    r"|organizing|organising|kicked\s+off|set\s+up|setting\s+up|opened|opening|making"
    rf"|founded|co-founded)\s+{_DET}{_OBJ}",
    _I,
)
_DONE = re.compile(
    r"\b(?P<verb>finished|completed|defended|submitted|shipped|published|wrapped\s+up"
    r"|handed\s+in|turned\s+in|sold|closed|graduated\s+from|got\s+my\s+[\w']+\s+(?:approved"
    r"|accepted)|passed|ran|finally\s+finished)\s+"
    + _DET
    + _OBJ
    + r"|\b(?P<obj2>(?:my|the|our)\s+[\w' -]{1,30}?)\s+(?:is|was|got|has\s+been|finally\s+got)"
    r"\s+(?:finally\s+|officially\s+)?(?P<state>done|finished|complete|completed|defended"
    r"|submitted|accepted|published|approved|shipped|launched|over|live|out)\b"
    r"|\b(?P<obj3>thesis|dissertation|proposal|book|paper)\s+(?:defended|submitted|done|finished)",
    _I,
)
_PAUSED = re.compile(
    r"\b(?:paused|pausing|put|putting|shelved|shelving)\s+" + _DET + r"(?P<obj>[\w' -]{1,30}?)"
    r"\s+on\s+(?:hold|ice|pause|the\s+back\s+burner)"
    r"|\b(?P<obj2>(?:my|the|our)\s+[\w' -]{1,30}?)\s+(?:is|'s)\s+(?:on\s+hold|on\s+ice|paused"
    r"|on\s+pause|on\s+the\s+back\s+burner)"
    r"|\btaking\s+a\s+break\s+from\s+" + _DET + r"(?P<obj3>[^,.;!?]+)",
    _I,
)
_STOPPED = re.compile(
    r"\b(?:stopped|quit|closed|shut\s+down|ended|dropped\s+out\s+of|dropped)\s+" + _DET + _OBJ, _I
)
_APPLIED = re.compile(
    r"\b(?P<verb>applied|applying|(?:submitted|sent\s+off|sent\s+in)\s+(?:my\s+|an?\s+)?"
    r"application)\s+(?:for|to)\s+" + _DET + r"(?P<obj>[^,.;!?]+?)"
    r"(?:\s+(?:at|to|with|in)\s+(?P<inst>[^,.;!?]+))?\s*(?:[,.;!?]|$)",
    _I,
)
_OUTCOME = re.compile(
    r"\b(?:got\s+(?P<ok>into|accepted\s+(?:to|at|into)|in\s+at|an\s+offer\s+from)|got\s+"
    r"(?P<no>rejected|turned\s+down)\s+(?:from|by)|didn't\s+get\s+into)\s+" + _DET + _OBJ,
    _I,
)
#: "got into astronomy" is an interest; "got into UBC" / "got into grad school" an outcome.
_INSTITUTION = re.compile(
    r"^(?-i:[A-Z])|\b(?:university|college|school|program|programme|uni|masters|phd|course"
    r"|academy|institute|residency|fellowship|exchange|team|class|cohort|ubc|mit)\b",
    _I,
)
#: "got into Roman history", "got into Japanese cinema": a subject, capitalised or not.
_SUBJECT = re.compile(
    r"\b(?:history|biology|architecture|economics|planning|philosophy|literature|art|arts"
    r"|science|sciences|physics|chemistry|mathematics|maths|math|astronomy|linguistics"
    r"|mythology|politics|cinema|film|films|poetry|culture|music|jazz|folklore|theology"
    r"|anthropology|archaeology|geology|psychology|sociology|design|typography|mycology)$",
    _I,
)
_PET_WORDS = "|".join(sorted(PETS, key=len, reverse=True))
_PET_PLAN = re.compile(
    r"\b(?P<verb>plan(?:ning)?\s+(?:to|on)\s+(?:get|getting|adopt|adopting)|going\s+to\s+(?:get"
    r"|adopt)|gonna\s+(?:get|adopt)|getting|want\s+to\s+(?:get|adopt)|wanna\s+(?:get|adopt)"
    r"|looking\s+(?:at|into|for)(?:\s+(?:getting|adopting))?|(?:thinking|dreaming)\s+(?:about"
    r"|of)\s+(?:getting|adopting)|considering(?:\s+(?:getting|adopting))?|hoping\s+to\s+(?:get"
    r"|adopt)|about\s+to\s+(?:get|adopt)|on\s+the\s+(?:wait(?:ing)?\s*)?list\s+for|researching"
    r"|adopting|(?:really\s+)?want(?:s|ed)?(?=\s+(?:a|an|another)\s)"
    r"|(?:would|'d)\s+love\s+(?:to\s+(?:get|adopt))?|saving\s+(?:up\s+)?for|visiting\s+breeders\s+for)"
    rf"\s+(?:(?:a|an|some|another|the|two)\s+)?(?:[\w-]+\s+){{0,3}}?(?P<obj>{_PET_WORDS})\b"
    r"(?!\s+(?:sitter|food|allergy|hair|toys?|bed|walker|park|person|groomer|insurance)"
    r"|\s+(?-i:[A-Z]))",  # "looking at Husky Lakes": a place, not a dog
    _I,
)
_PLAN_TO = re.compile(
    r"\b(?P<verb>plan(?:ning)?\s+(?:to|on)|going\s+to|gonna|thinking\s+(?:about|of)|considering"
    r"|want\s+to|hoping\s+to|intend\s+to|dreaming\s+of|about\s+to)\s+"
    r"(?P<act>build(?:ing)?|start(?:ing)?|writ(?:e|ing)|open(?:ing)?|launch(?:ing)?|renovat"
    r"(?:e|ing)|creat(?:e|ing)|set(?:ting)?\s+up|apply(?:ing)?\s+(?:for|to)|do(?:ing)?|run"
    r"(?:ning)?|mak(?:e|ing)|record(?:ing)?|organiz(?:e|ing))\s+" + _DET + _OBJ,
    _I,
)


def _name(raw: str) -> str:
    return trim_phrase(raw, 4)


def _project_ok(name: str, verb: str, determined: bool = True) -> bool:
    lower = name.lower()
    if not lower or lower in HOBBIES or lower.split()[0] in {"it", "that", "this", "to", "eating"}:
        return False
    head = lower.split()[-1]
    if head in PROJECT_HEADS:
        return True
    if head in {"one", "ones", "it", "them", "thing", "things", "something", "stuff", "more"}:
        return False  # "started writing another one": the thing is named elsewhere
    strong = " ".join(verb.lower().split()) in _STRONG_VERBS
    return strong and determined and not head.endswith("ing")


def _draft(
    kind: str,
    slot: str,
    value: str,
    m: re.Match[str],
    confidence: float,
    priority: int,
    *,
    categories: d.Weights = d.PROJECT,
    dates: d.DatePreference = "none",
    negatable: bool = False,
) -> Draft:
    return d.from_match(
        kind,
        slot,
        value,
        m,
        categories,
        d.R,
        confidence,
        priority,
        dates=dates,
        negatable=negatable,
    )


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    out: list[Draft] = []
    for m in _PET_PLAN.finditer(text):
        if not subject_is_user(text, m.start()):
            continue
        verb = m["verb"].lower()
        exploring = verb.startswith(("looking", "researching", "visiting", "considering"))
        out.append(
            _draft(
                "plan.pet",
                pet_plan_slot(PETS[m["obj"].lower()]),
                "planning",
                m,
                d.IMPLIED if exploring else d.STATED,
                12,
                categories=d.PET_PLAN,
            )
        )
    for m in _DONE.finditer(text):
        name = _name(m["obj"] or m["obj2"] or m["obj3"])
        verb = (m["verb"] or "finished").lower()
        if (
            m["obj2"]
            and not subject_is_user(text, m.start())
            and not m["obj2"].lower().startswith(("my", "our", "the"))
        ):
            continue
        if _project_ok(name, "finished") and (
            m["obj2"] or m["obj3"] or subject_is_user(text, m.start())
        ):
            if verb in {"ran", "passed"} and name.lower().split()[-1] not in {"marathon", "bar"}:
                continue
            out.append(
                _draft("project.done", project_slot(name), "done", m, d.COMMITTED, 13, dates="past")
            )
    for m in _PAUSED.finditer(text):
        name = _name(m["obj"] or m["obj2"] or m["obj3"])
        if name and name.lower() not in HOBBIES:
            out.append(_draft("project.paused", project_slot(name), "paused", m, d.COMMITTED, 13))
    for m in _APPLIED.finditer(text):
        if not subject_is_user(text, m.start()):
            continue
        target = trim_phrase(m["inst"], 3) if m["inst"] else _name(m["obj"])
        if target and not m["inst"] and target.lower().split()[-1] in PROJECT_HEADS:
            # "my application for the Seoul exchange" is the exchange plan: its topic is the
            # key that "the exchange is dead" will name (slots.project_slot).
            out.append(_draft("project.applied", project_slot(target), "applied", m,
                              d.STATED, 14, dates="past"))  # fmt: skip
        elif target:
            # The institution names the plan ("exchange at UBC" → project.ubc) because it
            # is what the user will call it later: "the ubc thing is dead" (paper C.3).
            out.append(
                _draft(
                    "project.applied",
                    f"project.{slug(target, max_words=2)}",
                    "applied",
                    m,
                    d.STATED,
                    14,
                    dates="past",
                )
            )
    for m in _OUTCOME.finditer(text):
        target = _name(m["obj"])
        if (
            m["ok"]
            and m["ok"].lower() == "into"
            and (not _INSTITUTION.search(target) or _SUBJECT.search(target.strip()))
        ):
            continue
        if target and subject_is_user(text, m.start()):
            value = "rejected" if (m["no"] or "didn't" in m.group(0).lower()) else "accepted"
            out.append(
                _draft(
                    "project.outcome",
                    f"project.{slug(target, max_words=2)}",
                    value,
                    m,
                    d.COMMITTED,
                    14,
                    dates="past",
                    negatable=True,
                )
            )
    _plans(text, out)
    return out


def _plans(text: str, out: list[Draft]) -> None:
    for m in _PLAN_TO.finditer(text):
        name = _name(m["obj"])
        if not subject_is_user(text, m.start()) or not name or name.lower() in HOBBIES:
            continue
        if re.search(_PET_WORDS, name, _I) and re.search(rf"\b(?:{_PET_WORDS})\b", name, _I):
            continue
        act = m["act"].lower()
        verb = m["verb"].lower()
        if act.startswith("apply"):
            continue  # the application pattern names it by institution
        if not (
            name.lower().split()[-1] in PROJECT_HEADS
            or act.startswith(("build", "start", "open", "launch"))
        ):
            continue
        hedge = verb.startswith(("thinking", "considering", "want", "hoping", "dreaming"))
        out.append(
            _draft(
                "project.planned",
                project_slot(name),
                "planned",
                m,
                d.HEDGED if hedge else d.STATED,
                14,
            )
        )
    for m in _START.finditer(text):
        verb = m["verb"].lower()
        name = _name(m["obj"])
        determined = bool(re.search(r"\b(?:a|an|my|our|the|this|another|new)\s+$",
                                    text[: m.start("obj")], _I))  # fmt: skip
        if not subject_is_user(text, m.start()) or not _project_ok(name, verb, determined):
            continue
        value = (
            "started"
            if m.group(0)
            .lower()
            .startswith(
                (
                    "start",
                    "began",
                    "begun",
                    "just",
                    "kick",
                    "set",
                    "open",
                    "found",
                    "co-f",
                    "launch",
                )
            )
            else "active"
        )
        out.append(
            _draft(
                "project.active",
                project_slot(name),
                value,
                m,
                d.COMMITTED,
                15,
                dates="past" if value == "started" else "none",
            )
        )
    for m in _STOPPED.finditer(text):
        name = _name(m["obj"])
        if subject_is_user(text, m.start()) and name and name.lower().split()[-1] in PROJECT_HEADS:
            out.append(
                _draft(
                    "project.stopped",
                    project_slot(name),
                    "stopped",
                    m,
                    d.COMMITTED,
                    15,
                    dates="past",
                )
            )
