"""Data pools of the tool-call generator: names, organisations, places, and the small draws made from them."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from console.authoring.gen_fit import pick

# ------------------------------------------------------------------------------------------------ data pools

FIRST = ["Ana", "Bruno", "Chen", "Dalia", "Emeka", "Farah", "Gustav", "Hana", "Ibrahim", "Jonas", "Keiko", "Lucia",
         "Mateo", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Sven", "Tariq", "Uma", "Viktor", "Wen", "Ximena",
         "Yusuf", "Zofia", "Amara", "Bilal", "Clara", "Diego", "Elif", "Felix", "Grace", "Hugo", "Ines", "Jamal"]
LAST = ["Silva", "Novak", "Okafor", "Lindqvist", "Tanaka", "Haddad", "Moreau", "Kowalski", "Fernandes", "Nguyen",
        "Schmidt", "Rossi", "Petrov", "Mensah", "Ibarra", "Kaur", "Johansson", "Costa", "Yilmaz", "Dubois",
        "Achterberg", "Banerjee", "Castillo", "Duarte", "Eriksen", "Fischer", "Gallagher", "Horvat", "Iqbal"]
ORGS = ["Northwind Outfitters", "Bluefin Logistics", "Kestrel Health", "Larkspur Media", "Meridian Freight",
        "Quarry Lane Foods", "Halcyon Bank", "Tidewater Energy", "Juniper Learning", "Arbor & Finch",
        "Copperleaf Insurance", "Saltmarsh Games", "Granite Peak Outdoor", "Vantage Clinics", "Brightwell Retail",
        "Osprey Analytics", "Fernhill Publishing", "Redwood Mobility", "Silverline Travel", "Cobalt Robotics"]
CITIES = [("Lisbon", "LIS", "Europe/Lisbon"), ("Berlin", "BER", "Europe/Berlin"), ("Tokyo", "HND", "Asia/Tokyo"),
          ("Toronto", "YYZ", "America/Toronto"), ("Singapore", "SIN", "Asia/Singapore"),
          ("Nairobi", "NBO", "Africa/Nairobi"), ("Sao Paulo", "GRU", "America/Sao_Paulo"),
          ("Madrid", "MAD", "Europe/Madrid"), ("Seoul", "ICN", "Asia/Seoul"), ("Chicago", "ORD", "America/Chicago"),
          ("Amsterdam", "AMS", "Europe/Amsterdam"), ("Melbourne", "MEL", "Australia/Melbourne"),
          ("Dubai", "DXB", "Asia/Dubai"), ("Vancouver", "YVR", "America/Vancouver"), ("Oslo", "OSL", "Europe/Oslo"),
          ("Mexico City", "MEX", "America/Mexico_City"), ("Zurich", "ZRH", "Europe/Zurich"),
          ("Bangalore", "BLR", "Asia/Kolkata"), ("Cape Town", "CPT", "Africa/Johannesburg"),
          ("Boston", "BOS", "America/New_York")]
REGIONS = ["us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-southeast-1", "ap-northeast-1", "sa-east-1"]


def _person(rng: random.Random) -> str:
    return f"{pick(rng, FIRST)} {pick(rng, LAST)}"


def _email(name: str, domain: str) -> str:
    first, last = name.lower().split(" ", 1)
    return f"{first}.{last.replace(' ', '')}@{domain}"


def _domain(org: str) -> str:
    return org.lower().replace(" & ", "").replace(" ", "") + ".com"


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _start(rng: random.Random) -> datetime:
    return datetime(2026, 1, 5) + timedelta(days=rng.randrange(160), hours=rng.randrange(6, 20),
                                            minutes=rng.randrange(60))
