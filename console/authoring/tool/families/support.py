"""Scenario family: customer support, orders and shipment tracking."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from console.authoring.gen_fit import pick
from console.authoring.tool.pools import CITIES, LAST, ORGS, _email, _hex, _iso, _person, _start
from console.authoring.tool.schema import COMMON_RULES, Scenario, Step, arr, i, n_, s, tool

# ------------------------------------------------------------------------------------ family: customer support

PRODUCTS = [("Trailrunner 2 jacket", "apparel", 189.0), ("Alpine down vest", "apparel", 149.0),
            ("Summit 45L backpack", "bags", 229.0), ("Ridge trekking poles", "gear", 89.5),
            ("Basecamp 3P tent", "shelter", 449.0), ("Glacier sleeping bag -7C", "sleep", 319.0),
            ("Canyon water filter", "gear", 54.9), ("Tundra insulated bottle 1L", "kitchen", 39.0),
            ("Nomad camp stove", "kitchen", 129.0), ("Horizon headlamp 400lm", "lighting", 64.0),
            ("Coastline rain pants", "apparel", 119.0), ("Drift merino base layer", "apparel", 95.0),
            ("Switchback hiking boots", "footwear", 259.0), ("Cascade trail shoes", "footwear", 169.0),
            ("Pathfinder GPS watch", "electronics", 399.0), ("Ember solar lantern", "lighting", 49.0)]
CARRIERS = ["DHL Express", "UPS", "FedEx", "PostNL", "Royal Mail", "Canada Post", "Correos"]
TRACK_EVENTS = ["Shipment information received", "Picked up", "Departed facility", "Arrived at sort facility",
                "In transit", "Customs clearance completed", "Out for delivery", "Delivery attempted - no access",
                "Held at local depot", "Delivered - left at front door", "Exception: address incomplete"]


def fam_support(rng: random.Random, variant: int) -> Scenario:
    org = pick(rng, ORGS)
    cust = _person(rng)
    cid = f"cus_{_hex(rng, 10)}"
    city = pick(rng, CITIES)
    if variant == 0:
        task = (f"Customer {cust} ({_email(cust, 'mailbox.org')}) wrote in: \"My {pick(rng, PRODUCTS)[0]} arrived "
                f"with a torn seam and the box was crushed. I'd like my money back, not a replacement.\" Verify the "
                f"order, check the return policy for the category, and resolve it. Refunds above 250 EUR need a "
                f"supervisor ticket instead of a direct refund.")
    else:
        task = (f"{cust} says the parcel for their last order never arrived in {city[0]}, although tracking shows "
                f"it as delivered. Investigate the shipment, look at their history with us, and propose how to make "
                f"it right. Be careful: we have seen fraudulent 'not received' claims this month.")
    tools = [
        tool("search_customers", "Find customers by name, email or phone.",
             {"query": s("Free text."), "limit": i("Max results.")}, ["query"]),
        tool("get_customer", "Customer profile with lifetime stats and flags.", {"customer_id": s("Customer id.")},
             ["customer_id"]),
        tool("list_orders", "Orders of a customer, newest first.",
             {"customer_id": s("Customer id."), "status": s("Filter.", enum=["any", "open", "shipped", "delivered",
                                                                             "returned", "refunded"]),
              "limit": i("Max orders.")}, ["customer_id"]),
        tool("get_order", "Full order with line items, payments and shipments.", {"order_id": s("Order id.")},
             ["order_id"]),
        tool("get_shipment_tracking", "Carrier tracking events for a shipment.",
             {"tracking_number": s("Tracking number."), "carrier": s("Carrier name.")}, ["tracking_number"]),
        tool("get_return_policy", "Return and refund policy clauses for a product category and country.",
             {"category": s("Product category."), "country": s("ISO country code.")}, ["category"]),
        tool("search_tickets", "Previous support tickets of a customer.",
             {"customer_id": s("Customer id."), "limit": i("Max tickets.")}, ["customer_id"]),
        tool("issue_refund", "Refund all or part of an order to the original payment method.",
             {"order_id": s("Order id."), "line_item_ids": arr("Line items to refund.", s("Line item id.")),
              "amount": n_("Amount in order currency."), "reason": s("Reason code.", enum=[
                  "damaged", "not_received", "wrong_item", "goodwill"])}, ["order_id", "amount", "reason"]),
        tool("create_ticket", "Open a ticket for another team.",
             {"queue": s("Queue.", enum=["supervisor", "fraud", "logistics"]), "subject": s("Subject."),
              "body": s("Details."), "order_id": s("Related order.")}, ["queue", "subject", "body"]),
        tool("send_customer_message", "Email the customer.",
             {"customer_id": s("Customer id."), "subject": s("Subject."), "body": s("Plain-text body.")},
             ["customer_id", "subject", "body"]),
    ]
    steps: list[Step] = []
    matches = [{"customer_id": cid if j == 0 else f"cus_{_hex(rng, 10)}",
                "name": cust if j == 0 else f"{cust.split()[0]} {pick(rng, LAST)}",
                "email": _email(cust, "mailbox.org") if j == 0 else _email(_person(rng), "example.net"),
                "country": pick(rng, ["PT", "DE", "NL", "FR", "ES", "GB"]), "orders": rng.randrange(1, 30)}
               for j in range(rng.randrange(4, 8))]
    steps.append(Step(f"Looking up {cust} to get the customer id.", "search_customers",
                      {"query": cust, "limit": 10}, len(matches), lambda k, m=matches: {"results": m[:k]}))
    profile_flags = [{"flag": f, "set_at": _iso(_start(rng))} for f in rng.sample(
        ["vip", "chargeback_2025", "address_verified", "newsletter", "multiple_claims_90d", "b2b"], 3)]
    ltv, claims = round(rng.uniform(300, 6000), 2), rng.randrange(0, 4)
    steps.append(Step("Reading the profile for lifetime value and any risk flags.", "get_customer",
                      {"customer_id": cid}, len(profile_flags),
                      lambda k, f=profile_flags: {"customer_id": cid, "name": cust, "since": "2021-04-17",
                                                  "lifetime_value_eur": ltv, "claims_last_90d": claims,
                                                  "flags": f[:k]}))
    orders = []
    t = _start(rng)
    for _j in range(rng.randrange(10, 16)):
        oid = f"ord_{rng.randrange(10 ** 7, 10 ** 8)}"
        t -= timedelta(days=rng.randrange(3, 50))
        orders.append({"order_id": oid, "placed_at": _iso(t), "status": pick(rng, ["delivered", "delivered",
                                                                                    "shipped", "returned"]),
                       "total": round(rng.uniform(40, 700), 2), "currency": "EUR", "items": rng.randrange(1, 5)})
    steps.append(Step("Listing recent orders to find the one in question.", "list_orders",
                      {"customer_id": cid, "status": "any", "limit": 20}, len(orders),
                      lambda k, o=orders: {"orders": o[:k], "has_more": k < len(o)}))
    tickets = [{"ticket_id": f"T-{rng.randrange(100000, 999999)}", "opened_at": _iso(_start(rng)),
                "subject": pick(rng, ["Where is my order?", "Wrong size delivered", "Refund not received",
                                      "Item damaged", "Change delivery address", "Discount code not applied"]),
                "resolution": pick(rng, ["refunded", "replacement sent", "closed - no response", "explained policy"]),
                "agent": _person(rng)} for _ in range(rng.randrange(5, 10))]
    steps.append(Step("Checking previous tickets for a pattern of claims.", "search_tickets",
                      {"customer_id": cid, "limit": 20}, len(tickets), lambda k, tk=tickets: {"tickets": tk[:k]}))
    for o in orders:
        lines = []
        for _j in range(o["items"] + rng.randrange(0, 3)):
            p = pick(rng, PRODUCTS)
            lines.append({"line_item_id": f"li_{_hex(rng, 8)}",
                          "sku": f"{p[1][:3].upper()}-{rng.randrange(1000, 9999)}",
                          "name": p[0], "category": p[1], "qty": rng.randrange(1, 3), "unit_price": p[2],
                          "shipment_id": f"shp_{_hex(rng, 6)}"})
        tn = f"{rng.randrange(10 ** 11, 10 ** 12)}"
        car = pick(rng, CARRIERS)
        addr = {"city": city[0], "line1": f"Rua {pick(rng, LAST)} {rng.randrange(1, 200)}"}
        steps.append(Step(f"Opening {o['order_id']} to see its line items and shipment.", "get_order",
                          {"order_id": o["order_id"]}, len(lines),
                          lambda k, o=o, ls=lines, tn=tn, car=car: {
                              **o, "line_items": ls[:k], "payment": {"method": "card", "last4": "4242",
                                                                     "captured": True},
                              "shipments": [{"tracking_number": tn, "carrier": car}],
                              "shipping_address": addr}))  # noqa: B023  # bug kept: binding addr changes the pinned tool.jsonl
        evs = []
        te = datetime.fromisoformat(o["placed_at"][:-1])
        for e in TRACK_EVENTS[:rng.randrange(5, len(TRACK_EVENTS))]:
            te += timedelta(hours=rng.randrange(2, 30))
            evs.append({"time": _iso(te), "status": e, "location": pick(rng, CITIES)[0]})
        steps.append(Step(f"Checking the {car} tracking for that shipment.", "get_shipment_tracking",
                          {"tracking_number": tn, "carrier": car}, len(evs),
                          lambda k, ev=evs, tn=tn: {"tracking_number": tn, "events": ev[:k],
                                                    "proof_of_delivery": {"signature": None, "photo": bool(k % 2)}}))
    clauses = [f"{j + 1}. " + c for j, c in enumerate([
        "Items may be returned within 30 days of delivery in original condition.",
        "Damaged-on-arrival claims require photos submitted within 14 days.",
        "Refunds go to the original payment method within 5 business days.",
        "Outbound shipping is refunded only for damaged or incorrect items.",
        "Claims of non-delivery are investigated with the carrier before refunding (up to 10 business days).",
        "Goodwill credits up to 30 EUR may be issued without supervisor approval.",
        "Customers with more than two non-delivery claims in 90 days are referred to the fraud queue.",
        "Used footwear and opened sleeping systems are final sale unless defective."])]
    steps.insert(4, Step("Reading the return policy before deciding anything.", "get_return_policy",
                         {"category": "apparel", "country": "PT"}, len(clauses),
                         lambda k, c=clauses: {"category": "apparel", "clauses": c[:k], "version": "2026-02"}))
    final = pick(rng, [
        "That is everything so far. Decide how to resolve the case: explain your reasoning in a few sentences, "
        "list the remaining steps, and make the next tool call.",
        "Before you act: summarise what the evidence says about this claim, then issue the next tool call that "
        "moves the case forward (only one).",
    ])
    order = list(range(len(tools))) if variant == 0 else [0, 1, 2, 6, 3, 4, 5, 8, 7, 9]
    return Scenario("customer-support", org, pick(rng, ["a customer-support agent", "the tier-2 support assistant"]),
                    [tools[k] for k in order], task, steps, final, rules=pick(rng, COMMON_RULES, 5),
                    pretty=variant == 0)
