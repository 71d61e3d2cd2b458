"""Facts that accumulate (AV5 broad aggregation) and stable identity (AV3).

AV5 asks for *all* current members of a set ("all of X's hobbies", Table 12); members the
user gave up must not be served as current. AV3 facts are said once, early, and must be
found under months of later conversation (paper Appendix K: "AV3 tradeoff").
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.lifecycle.phrasing import C, Kind, tpl
from schemas.categories import Category


@dataclass(frozen=True, slots=True)
class SetKind:
    """A domain of accumulating members; one slot per member ({slug})."""

    name: str
    category: Category
    slot: str
    gold: str
    gold_stop: str
    say: tuple[str, ...]
    stop: tuple[str, ...]
    ask: tuple[str, ...]
    values: tuple[str, ...]


S = SetKind
SET_KINDS: dict[str, SetKind] = {k.name: k for k in (
    S("hobby", C.HOBBIES_RECREATION, "hobby.{slug}", "User's hobbies include {v}",
      "User gave up {v}",
      tpl("I took up {v}|I've been doing {v} on weekends|I'm really into {v} lately|signed "
          "up for {v} classes, loving it|{v} is my new thing"),
      tpl("I gave up {v}|I quit {v}|I don't do {v} anymore|had to give up {v}, my knee "
          "can't take it|I stopped {v}, no time"),
      tpl("What are my hobbies these days?|What do I do for fun now?|What hobbies am I into "
          "at the moment?|Can you list my current hobbies?"),
      tpl("pottery|bouldering|salsa dancing|chess|birdwatching|sourdough baking|trail "
          "running|film photography|knitting|woodworking|sailing|open-water swimming|yoga|"
          "gardening|watercolor painting|guitar|fishing")),
    S("language", C.INTELLECTUAL_INTERESTS, "user.learning.{slug}", "User is learning {v}",
      "User stopped learning {v}",
      tpl("I'm learning {v}|started {v} lessons|doing {v} on Duolingo every day|my {v} "
          "classes are going well|I've been studying {v} in the evenings"),
      tpl("I gave up on {v}|dropped my {v} classes|stopped learning {v}, too busy|I'm done "
          "with {v} lessons|I quit {v}, it wasn't clicking"),
      tpl("Which languages am I learning?|What languages am I studying right now?|What "
          "languages am I working on these days?"),
      tpl("Spanish|Japanese|Italian|Portuguese|Korean|Arabic|German|Mandarin|Greek|Swahili|"
          "Dutch")),
    S("interest", C.INTELLECTUAL_INTERESTS, "interest.{slug}", "User is interested in {v}",
      "User lost interest in {v}",
      tpl("I got into {v}|I'm fascinated by {v}|I've been reading a lot about {v}|I'm "
          "really interested in {v} lately|I keep watching documentaries about {v}"),
      tpl("I lost interest in {v}|I'm over {v}, honestly|not into {v} anymore|{v} doesn't "
          "grab me anymore|I've moved on from {v}"),
      tpl("What topics am I interested in?|What subjects am I into these days?|What am I "
          "curious about lately?"),
      tpl("astronomy|Roman history|linguistics|behavioural economics|mycology|urban "
          "planning|philosophy of mind|marine biology|typography|volcanoes|medieval "
          "architecture")),
    S("pet", C.RELATIONAL_BONDS, "pet.{slug}", "User has a {species} named {v}",
      "User no longer has their {species} {v}",
      tpl("we have a {species} called {v}|we adopted a {species}, {v}|our {species} {v} ate "
          "my sandwich|{v}, our {species}, is the boss of the house|got a {species} called "
          "{v}!"),
      tpl("we had to rehome {v}, my allergies got worse|{v} went to live with my parents on "
          "their farm|we gave {v} to my sister, she has a garden|{v} passed away last week, "
          "I'm gutted|said goodbye to {v} this week, old age"),
      tpl("What pets do I have?|Which animals live with me now?|Tell me about my pets?"),
      tpl("Miso|Biscuit|Luna|Pepper|Mango|Olive|Ziggy|Tofu|Nala|Bruno|Pixel|Juniper")),
)}  # fmt: skip
SPECIES = tpl("cat|dog|rabbit|parrot|tortoise|guinea pig")

K = Kind
STABLE_KINDS: dict[str, Kind] = {k.name: k for k in (
    K("hometown", C.IDENTITY_SELF_CONCEPT, "user.hometown", "User is originally from {v}",
      say=tpl("I'm originally from {v}|I grew up in {v}|born and raised in {v}|{v} is where "
              "I grew up|my hometown is {v}, tiny place"),
      ask=tpl("Where am I originally from?|Where did I grow up?|What's my hometown?")),
    K("nationality", C.IDENTITY_SELF_CONCEPT, "user.nationality", "User is {v}",
      say=tpl("I'm {v}|I'm {v}, born and raised|I have {a_v} passport|I'm {v} by "
              "nationality|my family is {v} and so am I"),
      ask=tpl("What's my nationality?|What nationality am I?|Which passport do I hold?")),
    K("language", C.IDENTITY_SELF_CONCEPT, "user.native_language",
      "User's native language is {v}",
      say=tpl("my first language is {v}|{v} is my mother tongue|I grew up speaking {v}|I "
              "speak {v} at home with my parents|{v} is my native language"),
      ask=tpl("What's my native language?|What language did I grow up speaking?|What's my "
              "mother tongue?")),
    K("birthday", C.IDENTITY_SELF_CONCEPT, "user.birthday", "User's birthday is {v}",
      say=tpl("my birthday is {v}|I was born on {v}|{v} is my birthday, don't forget|turning "
              "a year older on {v}, as every year|my birthday's {v}, always rains"),
      ask=tpl("When's my birthday?|What date is my birthday?|When was I born, what day?")),
    K("sister", C.RELATIONAL_BONDS, "user.sister", "User has a sister named {v}",
      say=tpl("my sister {v} lives nearby|I have a younger sister called {v}|my big sister "
              "{v} is a nurse|{v}, my sister, is visiting soon|my sister's name is {v}"),
      ask=tpl("What's my sister's name?|What's my sister called?|Who's my sister?")),
    K("brother", C.RELATIONAL_BONDS, "user.brother", "User has a brother named {v}",
      say=tpl("my brother {v} is an engineer|I have an older brother, {v}|my little brother "
              "{v} just started uni|{v}, my brother, called today|my brother's name is {v}"),
      ask=tpl("What's my brother's name?|What's my brother called?|Who's my brother?")),
    K("daughter", C.RELATIONAL_BONDS, "user.daughter", "User has a daughter named {v}",
      say=tpl("my daughter {v} is in primary school|I have a daughter, {v}|{v}, my "
              "daughter, loves dinosaurs|my little girl {v} started swimming|my daughter's "
              "name is {v}"),
      ask=tpl("What's my daughter's name?|What's my daughter called?|Who's my daughter?")),
    K("best_friend", C.RELATIONAL_BONDS, "user.best_friend", "User's best friend is {v}",
      say=tpl("my best friend {v} is coming over|{v} has been my best friend since school|"
              "{v}, my best mate, always has my back|my best friend's name is {v}|nobody "
              "knows me like {v}, my best friend"),
      ask=tpl("Who's my best friend?|What's my best friend's name?|Who is my closest "
              "friend?")),
    K("mother", C.RELATIONAL_BONDS, "user.mother", "User's mother is named {v}",
      say=tpl("my mum {v} is visiting next month|my mother's name is {v}|my mom {v} still "
              "runs the family shop|{v}, my mother, taught me to cook|my mum, {v}, turns 70 "
              "this year"),
      ask=tpl("What's my mother's name?|What's my mum called?|Who's my mom?")),
    K("allergy", C.HEALTH_WELLBEING, "user.allergy", "User is allergic to {v}",
      say=tpl("I'm allergic to {v}|turns out I'm allergic to {v}|I can't have {v}, allergic "
              "since I was a kid|allergic to {v}, so I always check labels|heads up, I'm "
              "allergic to {v}"),
      ask=tpl("Am I allergic to anything?|What am I allergic to?|Do I have any allergies?")),
    K("condition", C.HEALTH_WELLBEING, "user.condition", "User has {v}",
      say=tpl("I have {v}|I was diagnosed with {v} a few years back|I live with {v}|"
              "managing my {v} takes work|my doctor keeps an eye on my {v}"),
      ask=tpl("What health conditions do I have?|Do I have any chronic conditions?|What "
              "medical condition do I live with?")),
)}  # fmt: skip
STABLE_VALUES: dict[str, tuple[str, ...]] = {
    "allergy": tpl("peanuts|shellfish|penicillin|cats|pollen|latex|sesame|bee stings"),
    "condition": tpl(
        "type 2 diabetes|asthma|migraines|high blood pressure|coeliac disease|hypothyroidism|eczema"
    ),
}
