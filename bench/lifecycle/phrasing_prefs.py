"""Preferences and habits (AV1 superseded preference, AV9 soft updates): replace-semantics
slots whose current value is what matters (paper Table 1 row 7, Appendix F)."""

from __future__ import annotations

from bench.lifecycle.phrasing import C, Kind, tpl

K = Kind
DIET = K(
    "diet", C.PREFERENCES_HABITS, "user.diet", "User follows a {v} diet",
    say=tpl("I've been {v} for like 5 years|I'm {v}|I went {v} a while ago|being {v} works "
           "for me|I've been strictly {v} since my twenties"),
    change=tpl("I'm {v} now, doctor said I needed more omega-3s|I switched from {old} to {v}|"
              "I've gone {v}|I'm not {old} anymore, I'm {v} now|gave up being {old}, I'm {v} "
              "these days"),
    gold_change="User now follows a {v} diet (was {old})",
    soft=tpl("I'm thinking about going {v}|I might try going {v}|maybe I'll go {v} in the new "
            "year, not decided|considering going {v}, still thinking about it|I've been "
            "toying with the idea of going {v}"),
    gold_soft="User is considering going {v}",
    commit=tpl("I did it, I'm {v} now|it's official, I've gone {v}|two weeks fully {v} and "
              "feeling great|went {v} for good this month|I'm properly {v} now"),
    stay=tpl("tried going {v} for a week, I'm sticking with being {old}|not going {v} after "
            "all, staying {old}|the {v} experiment is over, back to {old}|decided {v} isn't "
            "for me, I'm staying {old}|I'll stay {old}, {v} was too hard"),
    gold_stay="User still follows a {old} diet (decided against going {v})",
    ask=tpl("What's my diet these days?|What kind of diet do I follow now?|Am I still "
           "{old}?|What do I eat these days, diet-wise?"),
    ask_before=tpl("What diet was I on before going {v}?|What was my diet before I became "
                  "{v}?"),
)  # fmt: skip
COFFEE = K(
    "coffee", C.PREFERENCES_HABITS, "user.coffee_order", "User's usual coffee order is {a_v}",
    say=tpl("I usually get {a_v}|my go-to is {a_v}|{a_v} every morning, without fail|I always "
           "order {a_v} at the cafe|can't start the day without {a_v}"),
    change=tpl("I've switched to {v}s lately|I drink {v}s now instead of {old}s|these days "
              "it's {a_v} for me, I'm over {old}s|my order is {a_v} now|I gave up {old}s, "
              "I'm on {v}s now"),
    gold_change="User switched their coffee order from {a_old} to {a_v}",
    ask=tpl("What's my usual coffee order?|What do I order at the cafe these days?|How do I "
           "take my coffee now?"),
    ask_before=tpl("What did I use to order at the cafe before {v}s?|What was my coffee order "
                  "before I switched to {v}s?"),
)  # fmt: skip
MILK = K(
    "milk", C.PREFERENCES_HABITS, "user.milk", "User's milk of choice is {v}",
    say=tpl("I only use {v} in my coffee|{v} is the only one I trust for flat whites|I always "
           "buy {v}|I'm {a_v} person|we always have {v} in the fridge"),
    change=tpl("switched to {v}|I use {v} now, {old} changed their formula|{old} is trash now, "
              "I'm on {v}|I've moved to {v}|I'm buying {v} instead of {old} these days"),
    gold_change="User's milk of choice is now {v} (was {old})",
    ask=tpl("What milk do I use?|Which milk do I buy these days?|What milk do I put in my "
           "coffee now?"),
    ask_before=tpl("What milk did I use before {v}?|Which milk did I buy before switching to "
                  "{v}?"),
)  # fmt: skip
CUISINE = K(
    "cuisine", C.PREFERENCES_HABITS, "user.favorite_cuisine", "User's favourite food is {v}",
    say=tpl("my favourite food is {v}|{v} food is my absolute favourite|I could eat {v} every "
           "day|nothing beats {v} food for me|I love {v} food more than anything"),
    change=tpl("{v} has overtaken {old} as my favourite food|I'm obsessed with {v} food now, "
              "{old} is old news|my new favourite cuisine is {v}|honestly {v} is my favourite "
              "now, sorry {old}|I've gone off {old} food, {v} is my thing now"),
    gold_change="User's favourite food is now {v} (was {old})",
    ask=tpl("What's my favourite cuisine?|What food do I love most these days?|What's my "
           "favourite kind of food right now?"),
    ask_before=tpl("What was my favourite food before {v}?|Which cuisine did I love before "
                  "{v}?"),
)  # fmt: skip
COMMUTE = K(
    "commute", C.PREFERENCES_HABITS, "user.commute", "User commutes to work {v}",
    say=tpl("I get to work {v}|I commute {v}|I go to the office {v} every day|getting to "
           "work {v} takes me 25 minutes|my commute is {v}, rain or shine"),
    change=tpl("I commute {v} now|I've started going to work {v} instead of {old}|no more "
              "commuting {old}, I go {v} these days|switched my commute, I go {v} now|I get "
              "to work {v} now, much better than {old}"),
    gold_change="User now commutes to work {v} instead of {old}",
    ask=tpl("How do I get to work?|How do I commute these days?|How do I get to the office "
           "now?"),
    ask_before=tpl("How did I get to work before I started going {v}?|How did I use to "
                  "commute before going {v}?"),
)  # fmt: skip
WAKE = K(
    "wake", C.PREFERENCES_HABITS, "user.wake_time", "User wakes up at {v}",
    say=tpl("I wake up at {v}|my alarm goes off at {v}|I'm up at {v} every day|I get up at "
           "{v} on weekdays|{v} wake-ups are my routine"),
    change=tpl("I wake up at {v} now|I've moved my alarm to {v}|no more {old} starts, I'm up "
              "at {v} these days|new routine: up at {v}|since the schedule change I get up "
              "at {v}"),
    gold_change="User now wakes up at {v} instead of {old}",
    ask=tpl("What time do I wake up?|When does my alarm go off these days?|What time do I get "
           "up now?"),
    ask_before=tpl("What time did I use to wake up before {v}?|When did my alarm go off "
                  "before I moved it to {v}?"),
)  # fmt: skip
MUSIC = K(
    "music", C.PREFERENCES_HABITS, "user.music", "User mostly listens to {v}",
    say=tpl("I'm really into {v}|I mostly listen to {v}|{v} is all I listen to|my playlists "
           "are all {v}|I can't get enough {v}"),
    change=tpl("I've moved on from {old}, it's all {v} now|I mostly listen to {v} these days|"
              "{v} has taken over my playlists|I'm so into {v} now, not {old} anymore|"
              "switched from {old} to {v}, no regrets"),
    gold_change="User now mostly listens to {v} instead of {old}",
    ask=tpl("What music am I into?|What do I mostly listen to these days?|What's my music "
           "taste right now?"),
    ask_before=tpl("What music was I into before {v}?|What did I use to listen to before "
                  "{v}?"),
)  # fmt: skip
WORKOUT = K(
    "workout", C.PREFERENCES_HABITS, "user.workout_time", "User works out at the gym {v}",
    say=tpl("I work out {v}|I hit the gym {v}|my workouts are always {v}|I train {v}, it "
           "suits me|I do my gym sessions {v}"),
    change=tpl("I've started working out {v} instead|I train {v} now|my workouts are "
              "{v} now, {old} wasn't working|I hit the gym {v} these days|no more gym {old}, I "
              "go {v} now"),
    gold_change="User now works out at the gym {v} instead of {old}",
    ask=tpl("When do I usually work out?|When do I go to the gym these days?|What time of day "
           "do I train now?"),
    ask_before=tpl("When did I use to work out before switching to {v}?"),
)  # fmt: skip
PREFERENCE_KINDS: dict[str, Kind] = {
    k.name: k for k in (DIET, COFFEE, MILK, CUISINE, COMMUTE, WAKE, MUSIC, WORKOUT)
}

#: Values of every slot-valued kind, drawn without replacement along a chain.
VALUES: dict[str, tuple[str, ...]] = {
    "diet": tpl("vegetarian|vegan|pescatarian|flexitarian|dairy-free|gluten-free"),
    "coffee": tpl("oat flat white|double espresso|cappuccino|black americano|cortado|iced "
                 "latte|chai latte|matcha latte|macchiato"),
    "milk": tpl("oat milk|almond milk|soy milk|whole milk|Bonsoy oat|lactose-free milk|"
               "coconut milk"),
    "cuisine": tpl("Thai|Ethiopian|Georgian|Japanese|Lebanese|Mexican|Korean|Peruvian|"
                  "Sichuan|Vietnamese|Neapolitan|South Indian"),
    "commute": tpl("by bike|by tram|by car|on foot|by train|by bus|by e-scooter|by ferry"),
    "wake": tpl("5am|5:30am|6am|6:30am|7am|7:30am|8am"),
    "music": tpl("jazz|techno|indie folk|K-pop|hip hop|bossa nova|heavy metal|classical "
                "piano|Afrobeat|synthwave|fado"),
    "workout": tpl("early in the morning|at lunchtime|in the evening after work|on weekends|"
                  "late at night"),
    "car": tpl("Honda Civic|Toyota Corolla|Tesla Model 3|VW Golf|Ford Fiesta|Kia Niro|Subaru "
              "Outback|Mazda 3|Skoda Octavia|Volvo XC40"),
    "medication": tpl("lisinopril|amlodipine|metformin|sertraline|levothyroxine|losartan|"
                     "atorvastatin"),
    "manager": tpl("Karen|Dmitri|Fatima|Gustavo|Helen|Ibrahim|Joanna|Kenji|Lorna|Mateus|"
                  "Priyanka|Rolf"),
}  # fmt: skip
#: Career ladders for `role` chains (a chain walks up one ladder).
LADDERS: tuple[tuple[str, ...], ...] = (
    tpl("junior developer|software engineer|senior engineer|staff engineer|engineering "
       "manager"),
    tpl("staff nurse|senior nurse|charge nurse|ward manager"),
    tpl("line cook|sous chef|head chef|executive chef"),
    tpl("teaching assistant|class teacher|head of year|deputy head"),
    tpl("apprentice electrician|electrician|senior electrician|site supervisor"),
    tpl("analyst|senior analyst|team lead|head of analytics"),
    tpl("junior designer|designer|senior designer|design lead|creative director"),
    tpl("reporter|senior reporter|news editor|managing editor"),
)  # fmt: skip
