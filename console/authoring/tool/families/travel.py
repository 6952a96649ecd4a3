"""Scenario family: travel booking."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from console.authoring.gen_fit import pick
from console.authoring.tool.pools import CITIES, LAST, ORGS, _domain, _email, _hex, _iso, _person, _start
from console.authoring.tool.schema import COMMON_RULES, Scenario, Step, i, n_, s, tool

# -------------------------------------------------------------------------------------------- family: travel

def fam_travel(rng: random.Random, variant: int) -> Scenario:
    org = pick(rng, ORGS)
    trav = _person(rng)
    home, dest = rng.sample(CITIES, 2)
    d0 = _start(rng).replace(hour=0, minute=0) + timedelta(days=20)
    if variant == 0:
        task = (f"Book travel for {trav} to the {pick(rng, ['Data+AI', 'Retail Futures', 'OpenInfra', 'MedTech'])} "
                f"summit in {dest[0]}: arrive by the evening of {d0.date()}, the conference runs three days, return "
                f"right after. Company policy: economy for flights under 6 hours, hotel at most 260 EUR/night within "
                f"2 km of the venue. Check the weather so they pack properly.")
    else:
        task = (f"{trav}'s flight from {home[0]} to {dest[0]} on {d0.date()} was cancelled by the airline an hour "
                f"ago. Rebook the earliest reasonable alternative (they must be there by 09:00 the next day), adjust "
                f"the hotel if the arrival date changes, and tell them what changed.")
    tools = [
        tool("get_traveler_profile", "Traveler preferences, loyalty programmes and documents on file.",
             {"traveler_id": s("Traveler id or email.")}, ["traveler_id"]),
        tool("search_flights", "Search flight offers.",
             {"origin": s("IATA code."), "destination": s("IATA code."), "date": s("YYYY-MM-DD."),
              "cabin": s("Cabin.", enum=["economy", "premium_economy", "business"]),
              "max_stops": i("Max connections.", maximum=2)}, ["origin", "destination", "date"]),
        tool("get_fare_rules", "Change and refund rules of a fare.", {"offer_id": s("Offer id.")}, ["offer_id"]),
        tool("search_hotels", "Hotels with availability and nightly rate.",
             {"city": s("City."), "check_in": s("YYYY-MM-DD."), "check_out": s("YYYY-MM-DD."),
              "near": s("Landmark or address."), "max_rate_eur": n_("Max nightly rate.")},
             ["city", "check_in", "check_out"]),
        tool("get_weather_forecast", "Daily forecast.", {"city": s("City."), "days": i("Days.", maximum=10)},
             ["city"]),
        tool("create_booking", "Book an offer for a traveler (charges the company card).",
             {"offer_id": s("Flight or hotel offer id."), "traveler_id": s("Traveler."), "notes": s("Notes.")},
             ["offer_id", "traveler_id"]),
        tool("notify_traveler", "Send the traveler a message.",
             {"traveler_id": s("Traveler."), "channel": s("Channel.", enum=["email", "sms"]), "text": s("Text.")},
             ["traveler_id", "channel", "text"]),
    ]
    steps: list[Step] = []
    tid = _email(trav, _domain(org))
    prefs = [{"key": k, "value": v} for k, v in [("seat", pick(rng, ["aisle", "window"])),
                                                   ("meal", pick(rng, ["vegetarian", "none", "halal"])),
                                                   ("loyalty", f"{pick(rng, ['Miles&More', 'Flying Blue', 'Avios'])} "
                                                               f"{rng.randrange(10 ** 8, 10 ** 9)}"),
                                                   ("passport_expiry",
                                                    f"{rng.randrange(2027, 2034)}-0{rng.randrange(1, 9)}-15"),
                                                   ("hotel_chain", pick(rng, ["any", "Marriott", "Accor", "Hilton"]))]]
    steps.append(Step("Loading the traveler's preferences first.", "get_traveler_profile", {"traveler_id": tid},
                      len(prefs), lambda k, p=prefs: {"traveler_id": tid, "name": trav, "home_airport": home[1],
                                                      "preferences": p[:k]}))
    airlines = ["TP", "LH", "KL", "AF", "BA", "IB", "NH", "AC", "SQ", "EK", "LX", "SK"]
    for day in range(6):
        date = d0 + timedelta(days=day - 1 if variant == 0 else day // 2)
        o, dst = (home[1], dest[1]) if day % 3 != 2 else (dest[1], home[1])
        offers = []
        for _ in range(rng.randrange(6, 11)):
            dep = date + timedelta(hours=rng.randrange(6, 21), minutes=rng.choice([0, 15, 30, 45]))
            segs: list[dict[str, Any]]
            segs, t = [], dep
            for _st in range(rng.randrange(1, 3)):
                dur = timedelta(minutes=rng.randrange(70, 600))
                via = pick(rng, CITIES)[1]
                segs.append({"flight": f"{pick(rng, airlines)}{rng.randrange(100, 2999)}", "from": o if not segs else
                             segs[-1]["to"], "to": via, "dep": _iso(t), "arr": _iso(t + dur)})
                t += dur + timedelta(minutes=rng.randrange(50, 180))
            segs[-1]["to"] = dst
            offers.append({"offer_id": f"off_{_hex(rng, 10)}", "segments": segs, "stops": len(segs) - 1,
                           "cabin": "economy", "price": {"amount": round(rng.uniform(90, 1400), 2), "currency": "EUR"},
                           "refundable": rng.random() < 0.3, "baggage": pick(rng, ["1x23kg", "cabin only", "2x23kg"])})
        steps.append(Step(f"Searching {o} to {dst} on {date.date()}.", "search_flights",
                          {"origin": o, "destination": dst, "date": str(date.date()), "cabin": "economy",
                           "max_stops": 1}, len(offers), lambda k, of=offers: {"offers": of[:k]}))
        if day % 2 == 0:
            rules = [pick(rng, ["Changes permitted before departure for a fee of 75 EUR plus fare difference.",
                                "No refund after departure; taxes refundable on request.",
                                "Name changes not permitted.", "Same-day change allowed at the airport for 50 EUR.",
                                "Cancellation up to 24h before departure: refund minus 120 EUR.",
                                "No-show: fare forfeited.", "Upgrade with miles permitted.",
                                "Rebooking onto partner airlines permitted in case of disruption."])
                     for _ in range(rng.randrange(5, 9))]
            steps.append(Step("Checking the fare rules of the most suitable offer before committing.",
                              "get_fare_rules", {"offer_id": offers[0]["offer_id"]}, len(rules),
                              lambda k, r=rules, oid=offers[0]["offer_id"]: {"offer_id": oid, "rules": r[:k]}))
    hotels = [{"hotel_id": f"htl_{_hex(rng, 8)}", "name": f"{pick(rng, ['Hotel', 'Residence', 'Inn', 'Suites'])} "
               f"{pick(rng, LAST)}", "distance_km": round(rng.uniform(0.2, 6), 1),
               "rate_eur": round(rng.uniform(110, 420), 2), "rating": round(rng.uniform(3.4, 4.9), 1),
               "free_cancellation": rng.random() < 0.6} for _ in range(rng.randrange(10, 16))]
    steps.insert(3, Step(f"Looking for hotels near the venue in {dest[0]}.", "search_hotels",
                         {"city": dest[0], "check_in": str(d0.date()),
                          "check_out": str((d0 + timedelta(days=3)).date()),
                          "near": "conference centre", "max_rate_eur": 260}, len(hotels),
                         lambda k, h=hotels: {"hotels": h[:k]}))
    fc = [{"date": str((d0 + timedelta(days=j)).date()), "high_c": rng.randrange(4, 31), "low_c": rng.randrange(-3, 18),
           "precip_mm": round(rng.uniform(0, 14), 1), "summary": pick(rng, ["sunny", "showers", "overcast", "windy",
                                                                              "thunderstorms", "light rain"])}
          for j in range(7)]
    steps.append(Step(f"Checking the forecast for {dest[0]}.", "get_weather_forecast", {"city": dest[0], "days": 7},
                      len(fc), lambda k, f=fc: {"city": dest[0], "daily": f[:k]}))
    final = pick(rng, [
        "Those are all the results so far. Which options would you choose and why? Give a short plan, then make the "
        "next tool call.",
        "Summarise the best itinerary you can see in a few lines, list what is still missing, and issue the next "
        "tool call.",
    ])
    return Scenario("travel", org, pick(rng, ["a corporate travel assistant", "the travel desk agent"]),
                    tools if variant == 0 else [tools[k] for k in (1, 2, 3, 0, 5, 6, 4)], task, steps, final,
                    rules=pick(rng, COMMON_RULES, 5), pretty=variant == 1)
