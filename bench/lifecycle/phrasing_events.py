"""Scheduled things (AV2 expired logistics) and plans that get dropped (AV7 selective
forgetting): event-time anchored facts (paper §3.3, Appendix K) and retractions in varied
language (DESIGN §5: "the dog thing is dead", "scrap it", "forget I mentioned it")."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bench.lifecycle.phrasing import C, tpl
from schemas.categories import Category


@dataclass(frozen=True, slots=True)
class EventKind:
    """Something on the calendar. {when}: "on March 20 at 3pm"; {to}: "to March 22"."""

    name: str
    category: Category
    slot: str
    noun: str
    say: tuple[str, ...]
    move: tuple[str, ...]
    timed: bool = True
    #: Hours it may start at (a concert at 9am reads oddly).
    hours: tuple[int, ...] = (9, 10, 11, 14, 15, 16, 17)


_MOVE = "{noun} got moved {to}|they rescheduled my {noun} {to}|my {noun} is now {when}|" \
    "had to push my {noun} {to}|the {noun} was moved {to}"  # fmt: skip
E = EventKind
EVENT_KINDS: dict[str, EventKind] = {k.name: k for k in (
    E("dentist", C.OBLIGATIONS, "appointment.dentist", "dentist appointment",
      tpl("I have a dentist appointment {when}|dentist appointment {when}, dreading it|"
          "booked the dentist {when}|seeing the dentist {when}|got a dental check-up "
          "{when}"), tpl("my " + _MOVE)),
    E("doctor", C.OBLIGATIONS, "appointment.doctor", "doctor's appointment",
      tpl("I've got a doctor's appointment {when}|seeing my GP {when} about my knee|booked a "
          "check-up with the doctor {when}|doctor's appointment {when}, just routine|my "
          "annual physical is {when}"), tpl("my " + _MOVE)),
    E("physio", C.OBLIGATIONS, "appointment.physio", "physio appointment",
      tpl("physio appointment {when} for my shoulder|I'm seeing the physio {when}|booked "
          "physio {when}|my next physio session is {when}|got a physio slot {when}"),
      tpl("my " + _MOVE)),
    E("vet", C.OBLIGATIONS, "appointment.vet", "vet appointment",
      tpl("vet appointment {when} for the jabs|taking the cat to the vet {when}|booked the "
          "vet {when}|the vet is seeing us {when}|annual vet check {when}"),
      tpl("the " + _MOVE)),
    E("eye", C.OBLIGATIONS, "appointment.optometrist", "eye test",
      tpl("I have an eye test {when}|optometrist appointment {when}, need new glasses|booked "
          "an eye exam {when}|getting my eyes checked {when}|eye test {when} at the "
          "optician"), tpl("my " + _MOVE)),
    E("haircut", C.LOGISTICAL_CONTEXT, "appointment.haircut", "haircut",
      tpl("haircut booked {when}|getting my hair cut {when}|I have a haircut appointment "
          "{when}|booked the barber {when}|finally getting a trim {when}"),
      tpl("my " + _MOVE)),
    E("flight", C.LOGISTICAL_CONTEXT, "flight.{slug}", "flight to {place}",
      tpl("my flight to {place} is {when}|flying to {place} {when}|booked a flight to "
          "{place} {when}|I fly to {place} {when}|the {place} flight leaves {when}"),
      tpl("my " + _MOVE), hours=(6, 7, 9, 13, 16, 19)),
    E("interview", C.OBLIGATIONS, "interview.{slug}", "interview at {place}",
      tpl("I have an interview at {place} {when}|job interview at {place} {when}, "
          "nervous!|{place} invited me to interview {when}|got an interview with {place} "
          "{when}|my interview at {place} is {when}"), tpl("the " + _MOVE)),
    E("taxes", C.OBLIGATIONS, "deadline.taxes", "tax deadline",
      tpl("my taxes are due {when}|the tax deadline is {when}|have to file my taxes "
          "{when}|tax return due {when}, ugh|need to get my taxes in {when}"),
      tpl("the tax deadline got extended {to}|my tax deadline moved {to}|they extended the "
          "tax deadline {to}|the tax deadline is now {when}|tax filing got pushed {to}"),
      timed=False),
    E("delivery", C.LOGISTICAL_CONTEXT, "delivery.{slug}", "{item} delivery",
      tpl("my new {item} is being delivered {when}|the {item} arrives {when}|{item} delivery "
          "{when}, need to be home|they're delivering the {item} {when}|the {item} is "
          "coming {when}"), tpl("the " + _MOVE)),
    E("concert", C.LOGISTICAL_CONTEXT, "event.concert", "{place} concert",
      tpl("got tickets for the {place} concert {when}|going to see {place} {when}!|the "
          "{place} concert is {when}|{place} live {when}, can't wait|we're seeing {place} "
          "in concert {when}"), tpl("the " + _MOVE), hours=(19, 20)),
    E("parents_evening", C.OBLIGATIONS, "meeting.parents_evening", "parents' evening",
      tpl("parents' evening at school {when}|I have the parent-teacher meeting {when}|"
          "school wants to see us {when} for parents' evening|parents' evening is {when}|"
          "meeting my kid's teacher {when}"), tpl("the " + _MOVE), hours=(17, 18, 19)),
)}  # fmt: skip
#: Questions about one kind of event: upcoming, or (pass-by-absence) long past.
ASK_EVENT = tpl(
    "When's my next {noun}?|Do I have {a_noun} coming up?|When is my {noun}?|Have I got "
    "{a_noun} scheduled?|Is there {a_noun} on my calendar?"
)
ASK_ANY_UPCOMING = tpl(
    "What's coming up on my calendar?|What have I got scheduled in the next few weeks?|"
    "Anything coming up that I should prepare for?|What appointments or plans do I have "
    "coming up?|What's next on my schedule?"
)
EVENT_PLACES: dict[str, tuple[str, ...]] = {
    "flight": (),  # filled from the persona's zone cities
    "interview": tpl("Google|Spotify|Deloitte|the city council|St. Mary's Hospital|Canva"),
    "concert": tpl("Arctic Monkeys|Rosalía|Burna Boy|Taylor Swift|Radiohead|Fred again.."),
    "delivery": tpl("sofa|fridge|desk|washing machine|bed frame|bookshelf"),
}

_MONTHS = tpl("January|February|March|April|May|June|July|August|September|October|"
              "November|December")  # fmt: skip
_DAYS = tpl("Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday")


def _clock(t: datetime) -> str:
    hour = t.hour % 12 or 12
    minutes = f":{t.minute:02d}" if t.minute else ""
    return f"{hour}{minutes}{'am' if t.hour < 12 else 'pm'}"


def when_phrases(said: datetime, at: datetime, timed: bool, pick: int) -> tuple[str, str]:
    """("on March 20 at 3pm", "to March 20 at 3pm") or a relative form when it is near.

    `pick` chooses among the forms that are valid for the distance (tomorrow, a weekday
    within the week, or the date), so the conversation varies its date language.
    """
    days = (at.date() - said.date()).days
    clock = f" at {_clock(at)}" if timed else ""
    date = f"{_MONTHS[at.month - 1]} {at.day}"
    forms = [(f"on {date}{clock}", f"to {date}{clock}")]
    if days == 1:
        forms.append((f"tomorrow{clock}", f"to tomorrow{clock}"))
    elif 2 <= days <= 6:
        day = _DAYS[at.weekday()]
        forms.append((f"on {day}{clock}", f"to {day}{clock}"))
    return forms[pick % len(forms)]


def gold_when(at: datetime, timed: bool) -> str:
    """The unambiguous date a gold edge carries: "March 20, 2026 at 3pm"."""
    clock = f" at {_clock(at)}" if timed else ""
    return f"{_MONTHS[at.month - 1]} {at.day}, {at.year}{clock}"


@dataclass(frozen=True, slots=True)
class PlanKind:
    """A plan the user may later drop (AV7); `refs` are ways to refer back to it."""

    name: str
    category: Category
    slot: str
    gold: str
    say: tuple[str, ...]
    refs: tuple[str, ...]
    reasons: tuple[str, ...]
    ask: tuple[str, ...]


P = PlanKind
PLAN_KINDS: dict[str, PlanKind] = {k.name: k for k in (
    P("dog", C.PROJECTS_ENDEAVORS, "pet.dog.plan", "User is planning to get a dog",
      tpl("we're looking at golden retriever puppies|planning to get a dog this year|we want "
          "to adopt a puppy from the shelter|we're getting a labrador in the spring|I've "
          "decided I want a dog, visiting breeders soon"),
      tpl("the dog thing|the puppy plan|the dog idea|the whole dog plan"),
      tpl("Landlord said absolutely no pets|we just don't have the time|turns out my partner "
          "is allergic|our building doesn't allow dogs|we travel too much for a dog"),
      tpl("Am I getting a dog?|What's the latest on the puppy plan?|Are we still planning to "
          "get a dog?|Is a dog on the cards for me?")),
    P("cat", C.PROJECTS_ENDEAVORS, "pet.cat.plan", "User is planning to adopt a cat",
      tpl("we're adopting a kitten next month|planning to get a cat from the rescue|I want "
          "to adopt a cat, found a lovely tabby online|getting a kitten soon!|we're on the "
          "waiting list for a Maine Coon kitten"),
      tpl("the cat thing|the kitten plan|the cat idea|the kitten"),
      tpl("the rescue said our flat is too small|my allergies are worse than I thought|we're "
          "moving too much this year|the landlord said no|it's just not the right time"),
      tpl("Am I getting a cat?|What's happening with the kitten?|Are we still adopting a "
          "cat?")),
    P("exchange", C.PROJECTS_ENDEAVORS, "project.exchange",
      "User is applying for an exchange semester in {place}",
      tpl("I'm applying for an exchange semester in {place}!!|sent off my application for "
          "the {place} exchange|my plan is a semester abroad in {place}|working on the "
          "exchange application for {place}|I really want to do the exchange in {place}"),
      tpl("the exchange|the {place} exchange|the exchange thing|the semester abroad"),
      tpl("the funding fell through|I can't leave my job for six months|the credits don't "
          "transfer|my visa would never come in time|I'd rather stay near family"),
      tpl("Am I doing an exchange semester?|What's the status of my exchange to {place}?|"
          "Am I still going to {place} for the exchange?")),
    P("book", C.PROJECTS_ENDEAVORS, "project.book", "User is writing a book about {place}",
      tpl("I'm working on a book proposal about {place}|started writing a book about "
          "{place}|I've been drafting chapters for my book on {place}|an agent wants to see "
          "my book about {place}|my big project this year is a book on {place}"),
      tpl("the book|the book proposal|the book thing|the writing project"),
      tpl("the stories are not mine to tell|the publisher passed on it|I don't have the "
          "energy for it|it felt too personal|the agent dropped me"),
      tpl("Am I writing a book?|How's my book about {place} going?|Is the book proposal "
          "still happening?")),
    P("cabin", C.PROJECTS_ENDEAVORS, "project.cabin",
      "User is planning to build a cabin at {place}",
      tpl("I want to build a cabin out at {place}|we're planning a little cabin by "
          "{place}|drew up plans for a cabin at {place}|my summer project: a cabin at "
          "{place}|buying timber for the cabin at {place}"),
      tpl("the cabin|the cabin plan|the {place} cabin|the cabin project"),
      tpl("the ground is thawing too fast, it's slumped two metres|we couldn't get a "
          "permit|the costs tripled|the land sale fell through|it's just too far to drive"),
      tpl("Am I building a cabin?|What's happening with the cabin at {place}?|Is the cabin "
          "project going ahead?")),
    P("business", C.PROJECTS_ENDEAVORS, "project.side_business",
      "User is starting a {place} as a side business",
      tpl("I'm starting a {place} on the side|my side hustle plan: a {place}|registered a "
          "name for my {place}|working on a business plan for a {place}|I'm going to open "
          "a {place} at weekends"),
      tpl("the {place}|the side business|the side hustle|the {place} idea"),
      tpl("the numbers just don't work|I can't get a permit|there's no time with my job|"
          "my business partner pulled out|the market is too crowded"),
      tpl("Am I starting a side business?|What's the status of my {place}?|Is the side "
          "hustle still on?")),
    P("kitchen", C.PROJECTS_ENDEAVORS, "project.kitchen", "User is renovating the kitchen",
      tpl("we're redoing the kitchen this spring|got quotes for a new kitchen|the kitchen "
          "renovation starts soon|we're ripping out the old kitchen|picked tiles for the "
          "new kitchen"),
      tpl("the kitchen reno|the kitchen renovation|the kitchen project|the new kitchen"),
      tpl("the builder went bust|we need the money for the car|the landlord won't allow "
          "it|the quote was double what we expected|we're moving out anyway"),
      tpl("Are we renovating the kitchen?|What's happening with the kitchen renovation?|"
          "Is the new kitchen still going ahead?")),
    P("masters", C.PROJECTS_ENDEAVORS, "project.masters",
      "User is applying for a master's in {place}",
      tpl("I'm applying for a master's in {place}|putting together my application for a "
          "{place} master's|I want to go back to uni for a master's in {place}|asked my old "
          "professor for a reference for the {place} master's|shortlisted three {place} "
          "master's programmes"),
      tpl("the master's|the master's application|grad school|the {place} degree"),
      tpl("I can't afford the fees|work offered me a promotion instead|the programme got "
          "cancelled|it's not the right time with the kids|I missed the deadline"),
      tpl("Am I applying for a master's?|What's happening with my {place} master's?|Am I "
          "going back to uni?")),
    P("trip", C.LOGISTICAL_CONTEXT, "trip.{slug}.plan", "User is planning a trip to {place}",
      tpl("we're planning a trip to {place} next year|saving up for a big {place} trip|"
          "looking at flights for a {place} holiday|we want to do {place} next summer|"
          "started an itinerary for {place}"),
      tpl("the {place} trip|the trip to {place}|the {place} holiday|{place}"),
      tpl("it's way too expensive this year|work won't give me the time off|my partner "
          "can't travel right now|we need the money for the flat|the visa was refused"),
      tpl("Am I going to {place}?|Are we still doing the {place} trip?|What's the plan for "
          "the {place} holiday?")),
)}  # fmt: skip
PLAN_PLACES: dict[str, tuple[str, ...]] = {
    "exchange": tpl("Vancouver|Kyoto|Copenhagen|Melbourne|Montreal|Seoul"),
    "book": tpl(
        "chaplaincy|grief|my grandmother's village|the fishing industry|night shifts|street food"
    ),
    "cabin": tpl("Husky Lakes|the lake|my uncle's land|the coast|the forest plot"),
    "business": tpl("food truck|pottery studio|bike repair shop|coffee cart|candle shop"),
    "masters": tpl("public health|data science|architecture|social work|marine biology"),
    "trip": tpl("Japan|Patagonia|Iceland|Morocco|Vietnam|New Zealand|Peru"),
}
#: Retraction language (DESIGN §5), from a later session: names the plan.
DROP = tpl(
    "{ref} is dead. {reason}|scrap {ref}. {reason}|{ref} is off the table. {reason}|forget "
    "I mentioned {ref}. {reason}|{ref}? not happening anymore. {reason}|we called off {ref}. "
    "{reason}|I'm dropping {ref}. {reason}|{ref} is finished before it began. {reason}|change "
    "of plans: {ref} isn't happening. {reason}|no more {ref}. {reason}"
)
#: Retraction in the same session, right after the plan: refers back by "it"/"that".
DROP_NOW = tpl(
    "actually, scrap that. {reason}|forget I mentioned it. {reason}|never mind, that's not "
    "happening. {reason}|on second thought, scrap it. {reason}|hmm, forget it. {reason}"
)
