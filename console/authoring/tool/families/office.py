"""Scenario family: office work (mail, calendar, documents)."""

from __future__ import annotations

import random
from datetime import timedelta

from console.authoring.gen_fit import pick
from console.authoring.tool.pools import CITIES, ORGS, _domain, _email, _hex, _iso, _person, _start
from console.authoring.tool.schema import COMMON_RULES, Scenario, Step, arr, i, s, tool

# ------------------------------------------------------------------------------------- family: office assistant

SUBJECTS = ["Q3 board pack - draft 2", "Re: venue for offsite", "Budget reforecast inputs due Friday",
            "Minutes: leadership sync", "Re: hiring plan for platform team", "Customer escalation - Halvorsen AB",
            "Contract renewal: analytics vendor", "Re: travel for the partner summit", "Agenda items for next week",
            "Audit follow-ups", "Re: quarterly all-hands slides", "Invitation: strategy review"]


def fam_office(rng: random.Random, variant: int) -> Scenario:
    org = pick(rng, ORGS)
    dom = _domain(org)
    boss = _person(rng)
    people = [_person(rng) for _ in range(6)]
    t0 = _start(rng)
    if variant == 0:
        task = (f"I need a 60-minute meeting next week with {', '.join(people[:3])} and {people[3]} to agree the "
                f"reorg plan. Two of them are in other time zones, so find a slot that is inside everyone's working "
                f"hours, book a room for those in the office, and send the invite with the latest draft attached.")
    else:
        task = (f"The board meeting is on {(t0 + timedelta(days=9)).date()}. Collect the latest versions of every "
                f"document that should go in the board pack from email and the shared drive, tell me what is "
                f"missing or outdated, and draft a reminder to whoever still owes us something.")
    tools = [
        tool("search_email", "Search the mailbox.", {"query": s("Search query."), "folder": s("Folder."),
                                                     "limit": i("Max messages.")}, ["query"]),
        tool("read_email", "Read one message.", {"message_id": s("Message id.")}, ["message_id"]),
        tool("lookup_contact", "Directory entry: title, location, time zone, working hours.",
             {"name": s("Name or email.")}, ["name"]),
        tool("list_events", "Calendar events in a range.",
             {"calendar": s("Email of the calendar owner."), "start": s("ISO start."), "end": s("ISO end.")},
             ["calendar", "start", "end"]),
        tool("find_free_slots", "Common free slots of several people.",
             {"attendees": arr("Emails.", s("Email.")), "duration_minutes": i("Duration."),
              "window_start": s("ISO start."), "window_end": s("ISO end."), "timezone": s("IANA time zone.")},
             ["attendees", "duration_minutes", "window_start", "window_end"]),
        tool("list_drive_files", "Files in a shared-drive folder with owners and modification times.",
             {"folder": s("Folder path."), "modified_after": s("ISO date.")}, ["folder"]),
        tool("create_event", "Create a calendar event and send invitations.",
             {"title": s("Title."), "start": s("ISO start."), "end": s("ISO end."), "attendees": arr("Emails.",
                                                                                                    s("Email.")),
              "room": s("Room id."), "attachments": arr("File ids.", s("Id.")), "body": s("Description.")},
             ["title", "start", "end", "attendees"]),
        tool("send_email", "Send an email.", {"to": arr("Recipients.", s("Email.")), "subject": s("Subject."),
                                              "body": s("Body.")}, ["to", "subject", "body"]),
    ]
    steps: list[Step] = []
    for p in people[:4]:
        c = pick(rng, CITIES)
        info = [("title", pick(rng, ["VP Operations", "Head of Finance", "Chief of Staff", "Director, Platform",
                                     "General Counsel", "Regional Manager"])), ("office", c[0]), ("timezone", c[2]),
                ("working_hours", pick(rng, ["08:30-17:00", "09:00-18:00", "07:30-16:00"])),
                ("assistant", _person(rng))]
        steps.append(Step(f"Looking up {p}'s location and working hours.", "lookup_contact", {"name": p}, len(info),
                          lambda k, inf=info, p=p: {"name": p, "email": _email(p, dom), **dict(inf[:k])}))
    for q in range(8):
        msgs = [{"message_id": f"<{_hex(rng, 16)}@{dom}>", "from": _email(pick(rng, people), dom),
                 "date": _iso(t0 - timedelta(hours=rng.randrange(1, 400))), "subject": pick(rng, SUBJECTS),
                 "has_attachments": rng.random() < 0.5,
                 "snippet": pick(rng, ["Attached is the revised version with the comments from Monday.",
                                       "Can we move this to Thursday? I'm travelling on Wednesday.",
                                       "The numbers in tab 3 are still provisional until finance signs off.",
                                       "Please use this one, the earlier file had the wrong headcount.",
                                       "I'll send the legal summary by end of day tomorrow.",
                                       "Room 4.12 is booked for us, video link inside."])}
                for _ in range(rng.randrange(8, 14))]
        steps.append(Step("Searching the mailbox for the related threads." if q == 0 else
                          "Narrowing the mail search to the remaining items.", "search_email",
                          {"query": pick(rng, ["board pack", "reorg", "draft", "has:attachment newer_than:14d",
                                               "agenda", "from:finance"]), "folder": "inbox", "limit": 25},
                          len(msgs), lambda k, m=msgs: {"messages": m[:k]}))
        evs = [{"title": pick(rng, ["1:1", "Leadership sync", "Customer call", "Interview loop", "Focus time",
                                    "Budget review", "Town hall", "Vendor demo"]),
                "start": _iso(t0 + timedelta(days=rng.randrange(1, 8), hours=rng.randrange(-4, 8))),
                "duration_min": pick(rng, [30, 45, 60, 90]), "busy": True} for _ in range(rng.randrange(8, 14))]
        who = people[q % 4]
        steps.append(Step(f"Checking {who}'s calendar next week.", "list_events",
                          {"calendar": _email(who, dom), "start": _iso(t0 + timedelta(days=1)),
                           "end": _iso(t0 + timedelta(days=8))}, len(evs), lambda k, e=evs: {"events": e[:k]}))
        files = [{"file_id": f"f_{_hex(rng, 10)}", "name": pick(rng, ["Board pack", "CFO report", "Risk register",
                                                                      "Reorg proposal", "Hiring plan", "KPI dashboard",
                                                                      "Legal update"]) + f" v{rng.randrange(1, 9)}." +
                  pick(rng, ["pdf", "docx", "xlsx", "pptx"]), "owner": _email(pick(rng, people), dom),
                  "modified": _iso(t0 - timedelta(hours=rng.randrange(1, 900)))} for _ in range(rng.randrange(6, 12))]
        steps.append(Step("Listing what is in the shared board folder.", "list_drive_files",
                          {"folder": "/Leadership/Board/2026", "modified_after": str((t0 - timedelta(days=60)).date())},
                          len(files), lambda k, f=files: {"files": f[:k]}))
    final = pick(rng, [
        "Okay, what now? Give me a short plan and make the next tool call.",
        "Tell me briefly what you found and what is still open, then go ahead with the next tool call.",
    ])
    return Scenario("office-assistant", org, f"the executive assistant agent of {boss}",
                    tools if variant == 0 else [tools[k] for k in (5, 0, 1, 2, 3, 4, 7, 6)], task, steps, final,
                    rules=pick(rng, COMMON_RULES, 5), pretty=variant == 0)
