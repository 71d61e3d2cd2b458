"""Word lists the rules classify with: which nouns are hobbies, foods, conditions, jobs.

Lists, not models: the rule extractor is the no-LLM default and must stay deterministic and
fast. Keys are lower case; values are the canonical name used in slot keys, so that two
phrasings of one thing ("I run" / "I gave up running") land in the same slot (Appendix F).
"""

from __future__ import annotations


def words(text: str) -> tuple[str, ...]:
    """A whitespace-separated word list: long lexicons stay readable as one string."""
    return tuple(text.split())


#: Hobby words → canonical hobby name (slot "hobby.<name>", paper Table 1 row 6).
HOBBIES: dict[str, str] = {
    **{w: w for w in words(
        "fishing hiking running cycling swimming climbing bouldering yoga pilates gardening "
        "painting drawing sketching knitting crocheting sewing pottery ceramics woodworking "
        "photography baking chess gaming surfing skiing snowboarding skating skateboarding "
        "tennis golf soccer football basketball volleyball badminton boxing karate judo "
        "kayaking canoeing sailing camping birdwatching archery fencing hunting diving "
        "snorkeling quilting embroidery beekeeping homebrewing brewing podcasting blogging "
        "journaling calligraphy origami scrapbooking crossfit weightlifting powerlifting "
        "rowing dancing singing salsa tango ballet watercolor guitar piano violin drums cello "
        "ukulele bass saxophone trumpet flute cooking reading sculpting juggling geocaching "
        "parkour triathlons marathons gymnastics rugby cricket baseball hockey lacrosse "
        "softball squash pickleball meditation lego crosswords sudoku puzzles woodcarving "
        "stargazing mountaineering trekking backpacking paddleboarding kitesurfing "
        "windsurfing snowshoeing hiit spinning zumba capoeira aikido taekwondo wrestling "
        "bowling darts billiards pool poker dnd")},
    "rock climbing": "climbing", "bird watching": "birdwatching", "jogging": "running",
    "biking": "cycling", "mountain biking": "cycling", "video games": "gaming",
    "board games": "board_games", "martial arts": "martial_arts", "jiu jitsu": "jiu_jitsu",
    "bjj": "jiu_jitsu", "scuba diving": "diving", "horse riding": "horse_riding",
    "horseback riding": "horse_riding", "table tennis": "table_tennis",
    "ping pong": "table_tennis", "watercolour": "watercolor", "watercolors": "watercolor",
    "the garden": "gardening", "garden": "gardening", "the gym": "gym", "gym": "gym",
    "lifting": "weightlifting", "knit": "knitting", "bake": "baking", "paint": "painting",
    "run": "running", "swim": "swimming", "hike": "hiking", "climb": "climbing",
    "surf": "surfing", "ski": "skiing", "dance": "dancing", "sing": "singing", "cook": "cooking",
    "fish": "fishing", "sketch": "sketching", "draw": "drawing", "the guitar": "guitar",
    "the piano": "piano", "the violin": "violin", "the drums": "drums", "the cello": "cello",
    "magic": "magic", "model trains": "model_trains", "dungeons and dragons": "dnd",
    "open water swimming": "swimming", "trail running": "running", "salsa dancing": "salsa",
    "ice skating": "skating", "figure skating": "skating", "marathon running": "running",
    "birding": "birdwatching", "film photography": "photography",
    "open-water swimming": "swimming", "wild swimming": "swimming", "sourdough": "baking",
    "sourdough baking": "baking", "bread baking": "baking", "salsa classes": "salsa",
}  # fmt: skip

FOODS: frozenset[str] = frozenset(
    words(
        "pizza sushi pasta burgers burger tacos taco ramen curry pho noodles dumplings steak "
        "chicken salad salads sandwiches chocolate icecream cheese bread rice kebab kebabs falafel "
        "hummus shawarma paella lasagna risotto burritos burrito nachos pancakes waffles donuts "
        "bagels croissants seafood fish shrimp lobster crab oysters tofu tempeh bbq barbecue fries "
        "dim sum baklava pastries pastry cake cookies pie soup stew dal biryani tikka "
        "thai indian mexican italian chinese japanese korean vietnamese greek turkish lebanese "
        "ethiopian french spanish food cuisine spicy vegan sweets dessert desserts peruvian "
        "neapolitan sichuan szechuan cantonese malaysian indonesian moroccan persian filipino "
        "brazilian caribbean georgian"
    )
) | {"ice cream", "fried chicken", "mac and cheese", "dim sum", "hot pot", "pad thai"}

#: Coffee drinks: preferences about them share one slot (user.coffee_order).
COFFEE: frozenset[str] = frozenset(
    words("coffee latte lattes cappuccino espresso americano macchiato mocha cortado decaf")
) | {"flat white", "flat whites", "cold brew", "iced coffee", "pour over", "black coffee"}
MILK: frozenset[str] = frozenset(words("oat almond soy milk bonsoy oatly oatmilk dairy"))
DRINKS: frozenset[str] = frozenset(
    words(
        "tea chai matcha juice smoothies smoothie soda kombucha wine beer whiskey whisky gin "
        "cocktails water sparkling lemonade"
    )
)
MUSIC: frozenset[str] = (
    frozenset(
        words(
            "jazz rock pop metal classical hiphop rap techno house edm country blues punk indie "
            "folk reggae soul funk kpop k-pop opera r&b lofi"
        )
    )
    | {"hip hop", "hip-hop", "classical music"}
    | frozenset(
        words(
            "synthwave afrobeat afrobeats fado grime trap disco ambient bluegrass gospel dubstep "
            "trance shoegaze emo grunge ska drill amapiano"
        )
    )
    | {
        "heavy metal",
        "indie folk",
        "indie rock",
        "classical piano",
        "drum and bass",
        "bossa nova",
        "death metal",
        "k pop",
        "lo-fi",
        "lo fi",
        "city pop",
        "indie pop",
        "neo soul",
    }
)

#: Diet labels (slot user.diet; paper AV1: vegetarian → "started eating fish again").
DIETS: dict[str, str] = {
    "vegetarian": "vegetarian", "veggie": "vegetarian", "vegan": "vegan",
    "pescatarian": "pescatarian", "pescetarian": "pescatarian", "keto": "keto",
    "paleo": "paleo", "gluten-free": "gluten-free", "gluten free": "gluten-free",
    "dairy-free": "dairy-free", "dairy free": "dairy-free", "halal": "halal",
    "kosher": "kosher", "carnivore": "carnivore", "plant-based": "vegan",
    "plant based": "vegan", "low carb": "low-carb", "low-carb": "low-carb",
    "intermittent fasting": "intermittent fasting", "flexitarian": "flexitarian",
}  # fmt: skip

#: Long-lived conditions: identity-like health facts that persist (Table 1 row 4).
CHRONIC: dict[str, str] = {
    "diabetes": "diabetes", "type 1 diabetes": "diabetes", "type 2 diabetes": "diabetes",
    "diabetic": "diabetes", "asthma": "asthma", "asthmatic": "asthma", "adhd": "adhd",
    "add": "adhd", "autism": "autism", "autistic": "autism", "depression": "depression",
    "anxiety": "anxiety", "bipolar": "bipolar", "bipolar disorder": "bipolar",
    "ptsd": "ptsd", "ocd": "ocd", "migraines": "migraines", "chronic migraines": "migraines",
    "epilepsy": "epilepsy", "epileptic": "epilepsy", "celiac": "celiac",
    "coeliac": "celiac", "celiac disease": "celiac", "crohn's": "crohns", "crohns": "crohns",
    "crohn's disease": "crohns", "arthritis": "arthritis", "rheumatoid arthritis": "arthritis",
    "hypertension": "hypertension", "high blood pressure": "hypertension", "ibs": "ibs",
    "pcos": "pcos", "endometriosis": "endometriosis", "lupus": "lupus", "ms": "ms",
    "multiple sclerosis": "ms", "fibromyalgia": "fibromyalgia", "chronic pain": "chronic_pain",
    "chronic fatigue": "chronic_fatigue", "long covid": "long_covid", "eczema": "eczema",
    "psoriasis": "psoriasis", "hypothyroidism": "hypothyroidism", "dyslexia": "dyslexia",
    "cancer": "cancer", "tinnitus": "tinnitus", "sleep apnea": "sleep_apnea",
    "insomnia": "insomnia", "scoliosis": "scoliosis", "back problems": "back_problems",
    "a bad back": "back_problems", "a heart condition": "heart_condition",
    "high cholesterol": "high_cholesterol", "gout": "gout", "anemia": "anemia",
}  # fmt: skip

#: Short-lived conditions: expire after their event time (Table 1 row 4, Appendix K).
ACUTE: dict[str, str] = {
    "flu": "flu", "the flu": "flu", "a cold": "cold", "cold": "cold", "covid": "covid",
    "covid-19": "covid", "a fever": "fever", "fever": "fever", "a sore throat": "sore_throat",
    "sore throat": "sore_throat", "strep": "strep", "strep throat": "strep",
    "food poisoning": "food_poisoning", "a stomach bug": "stomach_bug",
    "stomach bug": "stomach_bug", "a migraine": "migraine", "migraine": "migraine",
    "a headache": "headache", "headache": "headache", "bronchitis": "bronchitis",
    "pneumonia": "pneumonia", "an ear infection": "ear_infection", "a chest infection":
    "chest_infection", "a sinus infection": "sinus_infection", "tonsillitis": "tonsillitis",
    "a concussion": "concussion", "concussion": "concussion", "the chickenpox": "chickenpox",
    "chickenpox": "chickenpox", "mono": "mono", "a uti": "uti", "pink eye": "pink_eye",
    "a rash": "rash", "a cough": "cough", "hay fever": "hay_fever", "a hangover": "hangover",
    "jet lag": "jet_lag", "norovirus": "norovirus", "the norovirus": "norovirus",
}  # fmt: skip
#: Injuries: "I sprained my ankle" → health.acute.sprained_ankle.
INJURY_VERBS = "sprained|broke|broken|twisted|pulled|tore|torn|fractured|dislocated|hurt|injured"
BODY_PARTS = (
    "ankle|wrist|arm|leg|knee|back|neck|shoulder|foot|hand|finger|toe|rib|ribs|hamstring|"
    "calf|hip|elbow|collarbone|nose|thumb|achilles|acl|meniscus|groin|muscle"
)

#: Profession heads for "I'm a(n) …", "I work as …" (Identity, Table 1 row 1).
PROFESSIONS: frozenset[str] = frozenset(
    words(
        "nurse teacher engineer developer programmer doctor physician surgeon lawyer attorney "
        "barber hairdresser stylist chaplain priest pastor rabbi imam minister student barista "
        "researcher scientist electrician plumber carpenter mechanic designer accountant "
        "manager director consultant analyst architect dentist pharmacist therapist "
        "psychologist psychiatrist counselor counsellor professor lecturer librarian farmer "
        "musician photographer journalist writer author editor artist painter chef cook baker "
        "waiter waitress bartender pilot firefighter paramedic cop officer soldier veteran "
        "veterinarian vet cashier clerk receptionist secretary salesman saleswoman realtor "
        "translator interpreter tutor coach trainer guide freelancer entrepreneur founder "
        "ceo cto cfo intern postdoc phd undergrad undergraduate graduate retiree homemaker "
        "carer caregiver midwife social worker dietitian nutritionist physiotherapist "
        "optometrist technician welder machinist driver trucker courier contractor "
        "investor banker trader economist statistician mathematician physicist chemist "
        "biologist geologist ecologist botanist historian philosopher linguist sociologist "
        "actor actress dancer singer composer producer filmmaker animator illustrator "
        "copywriter marketer recruiter administrator sysadmin scrum pm janitor cleaner "
        "gardener landscaper butcher fisherman sailor ranger warden guard paralegal judge "
        "diplomat politician activist missionary nun monk volunteer apprentice"
    )
) | {"social worker", "software engineer", "data scientist", "stay-at-home"}

DEMONYMS: frozenset[str] = frozenset(
    words(
        "american british english scottish welsh irish canadian australian mexican brazilian "
        "argentinian chilean colombian peruvian venezuelan cuban german french italian spanish "
        "portuguese dutch belgian swiss austrian swedish norwegian danish finnish icelandic "
        "polish czech slovak hungarian romanian bulgarian greek turkish russian ukrainian "
        "serbian croatian bosnian albanian israeli palestinian lebanese syrian iraqi iranian "
        "egyptian moroccan algerian tunisian nigerian ghanaian kenyan ethiopian somali "
        "ugandan tanzanian rwandan south african indian pakistani bangladeshi sri lankan "
        "nepali chinese taiwanese japanese korean vietnamese thai filipino filipina "
        "indonesian malaysian singaporean kiwi mongolian kazakh uzbek armenian georgian "
        "azerbaijani saudi emirati jordanian tamil-american indian-american chinese-australian "
        "mexican-american african-american"
    )
) | {"south african", "sri lankan", "new zealander"}

#: Pet words → species; the species qualifies the plan slot ("pet.dog.plan", AV7).
PETS: dict[str, str] = {
    **{w: "dog" for w in words(
        "dog dogs puppy puppies pup pups doggo retriever retrievers labrador lab labs "
        "poodle beagle husky corgi dachshund terrier spaniel collie shepherd pug bulldog")},
    **{w: "cat" for w in words("cat cats kitten kittens kitty")},
    **{w: w.rstrip("s") for w in words(
        "rabbit rabbits bunny hamster hamsters parrot parrots bird birds fish guinea "
        "horse horses lizard snake turtle tortoise ferret chickens chicken goat goats")},
    "bunny": "rabbit", "bunnies": "rabbit", "fish": "fish", "chickens": "chicken",
    "guinea pig": "guinea pig", "guinea pigs": "guinea pig",
}  # fmt: skip

#: Nouns that cannot be a city: "I live in a small flat", "moved to a new place".
NOT_PLACES: frozenset[str] = frozenset(
    words(
        "a an my our his her their this that these those some the apartment flat house home "
        "place room dorm studio condo basement neighborhood neighbourhood area building "
        "town city country suburbs it there here fear hope love denial shock pain debt trouble "
        "bed line charge touch contact favor favour front tears school college work office "
        "team part shape time order company business style general fact public private "
        "person progress recovery treatment therapy remission"
    )
)

#: Emotion words → base loading (paper B.6: mood modulates the fact it accompanies).
EMOTIONS: dict[str, float] = {
    "stressed": 0.6, "stressing": 0.6, "anxious": 0.6, "worried": 0.5, "nervous": 0.5,
    "frustrated": 0.6, "frustrating": 0.5, "angry": 0.7, "furious": 0.8, "pissed": 0.7,
    "upset": 0.6, "sad": 0.5, "depressed": 0.7, "devastated": 0.9, "heartbroken": 0.9,
    "gutted": 0.7, "miserable": 0.7, "overwhelmed": 0.7, "exhausted": 0.5, "burnt out": 0.6,
    "burned out": 0.6, "scared": 0.6, "terrified": 0.8, "freaking out": 0.7,
    "panicking": 0.7, "dreading": 0.6, "annoyed": 0.4, "bummed": 0.4, "disappointed": 0.5,
    "lonely": 0.5, "excited": 0.6, "thrilled": 0.7, "ecstatic": 0.8, "stoked": 0.6,
    "pumped": 0.6, "happy": 0.4, "proud": 0.5, "relieved": 0.4, "grateful": 0.4,
    "over the moon": 0.8, "can't wait": 0.6, "cant wait": 0.6, "nervous wreck": 0.8,
    "a mess": 0.6, "heartbreaking": 0.8, "sucks": 0.4, "awful": 0.5, "terrible": 0.5,
    "amazing": 0.4, "love it": 0.4, "hate it": 0.5, "hate": 0.5, "crying": 0.7,
}  # fmt: skip
INTENSIFIERS: frozenset[str] = frozenset(
    words(
        "so really super very extremely incredibly totally absolutely completely insanely "
        "seriously honestly beyond utterly"
    )
)

#: Languages a user may be learning ("started Greek lessons", "doing Dutch on Duolingo").
LANGUAGES: frozenset[str] = frozenset(
    words(
        "spanish french german italian portuguese japanese korean mandarin cantonese chinese "
        "arabic greek swahili dutch russian hindi urdu turkish polish swedish norwegian danish "
        "finnish icelandic hebrew vietnamese thai indonesian tagalog latin irish welsh gaelic "
        "catalan basque czech hungarian romanian ukrainian persian farsi bengali punjabi tamil "
        "esperanto asl bsl"
    )
)
