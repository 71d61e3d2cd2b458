"""Synthetic personas for the lifecycle benchmark (paper Appendix C.1, C.3).

The paper's 40 personas span 14 nationalities, ages 22–68 and occupations "from electrician
to hospice chaplain"; each is a temporal state machine over ~35 sessions in ~18 months.
Ours are drawn from the pools below by a seeded `random.Random`, so (index, seed) always
gives the same person. Diversity matters for the same reason as in the paper (C.1): a
memory policy must not depend on who is talking.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

# Nationality → (adjective, native language, first names, last names, home towns). Names
# mix genders; pronouns are never needed: people talk about themselves in the first person.
_NATIONS: dict[str, tuple[str, str, str, str, str]] = {
    "US": ("American", "English", "Priya Jake Diane Marcus Tanya Cole Rosa Eli",
           "Holloway Sharma Brooks Delgado Nguyen Carter", "Austin|Asheville|Tulsa|Boise|Dayton"),
    "TR": ("Turkish", "Turkish", "Mehmet Ayşe Emre Zeynep Burak Elif",
           "Yılmaz Demir Kaya Şahin Çelik", "Izmir|Bursa|Trabzon|Eskişehir"),
    "AU": ("Australian", "English", "Lily Jack Chloe Liam Mia Noah",
           "Chen Walker Murphy Nguyen Kelly", "Geelong|Ballarat|Cairns|Wollongong"),
    "CA": ("Canadian", "English", "Billy Sarah Owen Megan Ethan Leah",
           "Kootook Tremblay Roy Campbell Gagnon", "Inuvik|Moncton|Kamloops|Sudbury"),
    "IN": ("Indian", "Hindi", "Arjun Kavya Rohan Ananya Vikram Meera",
           "Iyer Patel Reddy Menon Gupta", "Chennai|Pune|Jaipur|Kochi|Lucknow"),
    "BR": ("Brazilian", "Portuguese", "Thiago Camila Lucas Beatriz Rafael Júlia",
           "Oliveira Santos Costa Almeida Ribeiro", "Recife|Curitiba|Salvador|Belém"),
    "NG": ("Nigerian", "Yoruba", "Chinedu Amaka Tunde Ngozi Emeka Folake",
           "Okafor Adeyemi Balogun Eze Nwosu", "Ibadan|Enugu|Abeokuta|Jos"),
    "DE": ("German", "German", "Lukas Anna Jonas Lea Felix Hannah",
           "Müller Schmidt Becker Wagner Hoffmann", "Freiburg|Kassel|Rostock|Münster"),
    "JP": ("Japanese", "Japanese", "Haruto Yui Sota Aoi Ren Hina",
           "Sato Suzuki Takahashi Tanaka Ito", "Sendai|Kanazawa|Matsumoto|Nagasaki"),
    "MX": ("Mexican", "Spanish", "Diego Valeria Mateo Ximena Santiago Regina",
           "Hernández García Martínez López Ramírez", "Oaxaca|Puebla|Mérida|Guanajuato"),
    "KR": ("Korean", "Korean", "Minjun Seoyeon Jiho Hayoon Doyun Jiwoo",
           "Kim Lee Park Choi Jung", "Daegu|Gwangju|Jeonju|Gangneung"),
    "PL": ("Polish", "Polish", "Jakub Zofia Kacper Maja Szymon Julia",
           "Nowak Kowalski Wiśniewski Wójcik Kamiński", "Gdańsk|Lublin|Toruń|Rzeszów"),
    "IE": ("Irish", "English", "Aoife Cian Siobhan Darragh Niamh Conor",
           "Murphy Byrne Walsh O'Brien Doyle", "Galway|Cork|Limerick|Sligo"),
    "KE": ("Kenyan", "Swahili", "Wanjiru Otieno Akinyi Kamau Njeri Kiprop",
           "Mwangi Odhiambo Wambui Kiptoo Ochieng", "Kisumu|Eldoret|Nakuru|Malindi"),
    "FR": ("French", "French", "Camille Hugo Chloé Louis Manon Jules",
           "Martin Bernard Dubois Lefèvre Moreau", "Nantes|Rennes|Dijon|Annecy"),
    "VN": ("Vietnamese", "Vietnamese", "Linh Minh Trang Duc Mai Khoa",
           "Tran Le Pham Hoang Vu", "Hue|Da Nang|Can Tho|Hai Phong"),
}  # fmt: skip


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


#: Occupation → sector; the sector picks plausible employers (a chaplain does not work at a
#: game studio). Occupations follow C.1's range.
_OCCUPATIONS: dict[str, str] = {
    "electrician": "trades", "hospice chaplain": "care", "ML engineer": "tech",
    "barber": "salon", "wildlife researcher": "research", "nurse": "care",
    "primary school teacher": "education", "accountant": "finance", "sous chef": "food",
    "architect": "design", "paramedic": "care", "journalist": "media",
    "graphic designer": "design", "pharmacist": "care", "civil engineer": "public",
    "barista": "food", "lawyer": "finance", "physiotherapist": "care",
    "data analyst": "tech", "carpenter": "trades", "veterinarian": "care",
    "librarian": "public", "social worker": "public", "UX designer": "tech",
    "translator": "media", "environmental science student": "research",
}  # fmt: skip
EMPLOYERS: dict[str, tuple[str, ...]] = {
    "trades": ("Sparks & Sons", "BrightVolt Electric", "Harbor Builders", "Oakline Contractors",
               "Northside Maintenance", "the city housing authority"),
    "care": ("St. Mary's Hospital", "Riverside Hospice", "Greenfield Clinic", "City Ambulance",
             "Maple Health", "Lakeside Care Home"),
    "tech": ("Google", "Anthropic", "Spotify", "Shopify", "Atlassian", "Canva", "Stripe",
             "Zalando", "Klarna"),
    "research": ("the Polar Institute", "the university", "Wildlife Trust", "Ocean Lab",
                 "the national park service", "GeoSurvey"),
    "education": ("Hillside Primary", "St. Anne's School", "Westbrook Academy",
                  "Lincoln Elementary", "the international school"),
    "finance": ("Deloitte", "KPMG", "Baker & Lowe", "Northbank", "Meridian Partners", "PwC"),
    "food": ("Blue Lotus", "Trattoria Sole", "Noodle Bar 88", "Cedar & Salt",
             "the Green Fork", "Sakura House"),
    "design": ("Studio Nord", "Foster Lane", "Atelier Blanc", "Pixel Forge", "Canva",
               "Bright Matter"),
    "media": ("The Herald", "Radio One", "Northlight Media", "the Courier",
              "Lingua Services", "Atlas Press"),
    "salon": ("my own barbershop", "Fade Street Barbers", "the Corner Barbershop",
              "Old Town Cuts", "Kadıköy Berber"),
    "public": ("the city council", "the public library", "the transport authority",
               "Social Services", "the regional water board"),
}  # fmt: skip
#: Where people live, by currency zone: moves stay inside a zone so that amounts keep one
#: currency (rent in London is in pounds). zone → (symbol, scale from USD, cities).
ZONES: dict[str, tuple[str, float, tuple[str, ...]]] = {
    "EUR": ("€", 0.9, ("Lisbon", "Porto", "Berlin", "Munich", "Vienna", "Amsterdam", "Dublin",
                       "Paris", "Lyon", "Barcelona", "Madrid", "Valencia", "Milan", "Rome",
                       "Athens", "Freiburg", "Galway", "Cork")),
    "GBP": ("£", 0.8, ("London", "Manchester", "Edinburgh", "Bristol", "Leeds", "Glasgow")),
    "USD": ("$", 1.0, ("Boston", "Chicago", "Seattle", "Denver", "Austin", "Portland",
                       "Atlanta", "Asheville")),
    "CAD": ("C$", 1.35, ("Toronto", "Montreal", "Vancouver", "Calgary", "Ottawa",
                         "Tuktoyaktuk")),
    "AUD": ("A$", 1.5, ("Melbourne", "Sydney", "Brisbane", "Perth", "Adelaide")),
    "JPY": ("¥", 150.0, ("Tokyo", "Osaka", "Kyoto", "Fukuoka", "Sapporo")),
    "TRY": ("₺", 35.0, ("Istanbul", "Kadıköy", "Ankara", "Izmir", "Antalya")),
    "INR": ("₹", 85.0, ("Mumbai", "Bangalore", "Delhi", "Pune", "Hyderabad", "Chennai")),
    "KES": ("KSh ", 130.0, ("Nairobi", "Mombasa", "Kisumu", "Nakuru")),
}  # fmt: skip
#: A persona lives in its home zone unless it moved abroad (C.3: Priya, Tamil-American, lives
#: in Austin; Lily, Chinese-Australian, in Melbourne).
_HOME_ZONE = {"US": "USD", "TR": "TRY", "AU": "AUD", "CA": "CAD", "IN": "INR", "DE": "EUR",
              "JP": "JPY", "IE": "EUR", "KE": "KES", "FR": "EUR", "PL": "EUR", "MX": "USD",
              "BR": "EUR", "NG": "GBP", "KR": "JPY", "VN": "AUD"}  # fmt: skip
FIRST_NAMES = _words(
    "Alex Sam Jordan Mika Soph Robin Noor Kai Rhea Tomás Ines Leo Ava Omar Yara Finn Zoe "
    "Ivan Lena Ravi Nadia Hugo Maya Theo Iris Sami Dana Ezra Lucia Marco Aiko Bea Caleb "
    "Deniz Elena Farid Greta Hamza Ingrid Jonah Kira Luca Mina Nico Olga Pia Quinn Rafa"
)
#: For family members a name should fit the relation (a mother called Jonah reads oddly).
FEMALE_NAMES = _words(
    "Ava Zoe Lena Nadia Maya Iris Lucia Aiko Bea Elena Greta Ingrid Kira Mina Olga Pia Rhea "
    "Yara Noor Ines"
)
MALE_NAMES = _words(
    "Leo Omar Finn Ivan Ravi Hugo Theo Ezra Marco Caleb Farid Hamza Jonah Luca Nico Rafa Tomás "
    "Kai Sami"
)


@dataclass(frozen=True, slots=True)
class Persona:
    """Who is talking: fixed attributes plus the timeline's frame (sessions, query time)."""

    pid: str
    name: str
    age: int
    nationality: str
    language: str
    currency: str
    #: USD → local amounts (rent in yen is not rent in dollars).
    scale: float
    #: The cities of the persona's zone: where it lives and may move to.
    cities: tuple[str, ...]
    hometown: str
    city: str
    occupation: str
    sector: str
    employer: str
    start: datetime
    sessions: tuple[datetime, ...]
    as_of: datetime

    @property
    def user_id(self) -> str:
        return self.pid


#: The paper's personas span ~35 sessions over 14.95–18.53 simulated months (C.4).
SESSIONS = 35
_EPOCH = datetime(2024, 1, 8, tzinfo=UTC)


def _session_times(rng: random.Random, start: datetime, days: int) -> tuple[datetime, ...]:
    """35 session starts over `days`: the first at `start`, the last at the end, in order;
    sessions are at least two days apart so a session stays one sitting."""
    offsets = sorted(rng.sample(range(2, days - 1), SESSIONS - 2))
    picked = [0]
    for off in offsets:
        picked.append(max(off, picked[-1] + 2))
    picked.append(max(days, picked[-1] + 2))
    return tuple(
        start + timedelta(days=d, hours=rng.randint(8, 21), minutes=rng.choice((0, 15, 30, 45)))
        for d in picked
    )


def make_persona(index: int, rng: random.Random) -> Persona:
    code = (
        list(_NATIONS)[index % len(_NATIONS)]
        if index < len(_NATIONS)
        else rng.choice(list(_NATIONS))
    )
    adjective, language, firsts, lasts, towns = _NATIONS[code]
    zone = _HOME_ZONE[code] if rng.random() < 0.7 else rng.choice(sorted(ZONES))
    currency, scale, cities = ZONES[zone]
    occupation = rng.choice(sorted(_OCCUPATIONS))
    sector = _OCCUPATIONS[occupation]
    age = rng.randint(22, 68)
    if occupation == "environmental science student":
        age = rng.randint(20, 26)
    start = _EPOCH + timedelta(days=rng.randint(0, 300))
    days = rng.randint(455, 563)  # ≈ 14.95–18.5 months, as in C.4
    sessions = _session_times(rng, start, days)
    as_of = (sessions[-1] + timedelta(days=1)).replace(hour=12, minute=0)
    return Persona(
        pid=f"p{index:02d}",
        name=f"{rng.choice(firsts.split())} {rng.choice(lasts.split())}",
        age=age,
        nationality=adjective,
        language=language,
        currency=currency,
        scale=scale,
        cities=cities,
        hometown=rng.choice(towns.split("|")),
        city=rng.choice(cities),
        occupation=occupation,
        sector=sector,
        employer=rng.choice(EMPLOYERS[sector]),
        start=start,
        sessions=sessions,
        as_of=as_of,
    )
