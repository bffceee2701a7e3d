#!/usr/bin/env python3
"""Writes sample-logs/: two bench rounds of the pipeline, the other record formats, and a
directory of deliberately bad inputs. Deterministic: the same files every run.

    python3 scripts/make-sample-logs.py [OUT]      (default: sample-logs/ beside scripts/)

The replies are reconstructions, written for this project, of the shapes the seed
comments describe; `tests/logs/samples.rs` checks that each reads the way they say.
"""

import datetime
import hashlib
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

ROOT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "sample-logs"


def js(obj):
    """JSON.stringify: compact, non-ASCII as is."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def model_json(obj):
    """How a model writes an envelope: spaces after the separators."""
    return json.dumps(obj, ensure_ascii=False)


def envelope(html, log, suggested=None):
    return model_json({"html": html, "log": log, "suggested_agent": suggested})


def sha(s):
    return hashlib.sha1(s.encode()).hexdigest()


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def pad_to(text, length, filler):
    """`text` grown to exactly `length` characters with sentences from `filler`."""
    i = 0
    while len(text) < length:
        s = filler[i % len(filler)]
        i += 1
        room = length - len(text)
        text += s if len(s) <= room else s[: room - 1] + "."
    assert len(text) == length, (len(text), length)
    return text


# --- page content -------------------------------------------------------------

DEPTS = [
    "Bus operations", "Rail operations", "Paratransit contract services", "Vehicle maintenance",
    "Maintenance of way", "Facilities maintenance", "Fare collection", "Customer information",
    "Transit police", "Safety and security", "Planning and scheduling", "Service development",
    "Information technology", "Human resources", "Training center", "Finance and budget",
    "Procurement", "Legal services", "Risk management", "Claims and insurance",
    "Marketing", "Community relations", "Government affairs", "Executive office",
    "Internal audit", "Grants administration", "Real estate", "Environmental compliance",
    "Fleet engineering", "Capital project management", "Accessibility services", "Vanpool program",
    "Commuter rail contract", "Regional mobility hubs", "Fuel and propulsion power", "Utilities",
    "Debt service transfer", "Contingency reserve",
]

REGIONS = ["Northwest", "Northeast", "Central", "Southwest", "Southeast", "Lakeshore"]

BUDGET_PAGES = {
    1: ("Regional Transit Authority", "FY2024 Adopted Operating and Capital Budget"),
    2: ("Letter from the General Manager", None),
    3: ("Budget at a Glance", "Table 1. Sources and uses of funds"),
    4: ("Service Area and Governance", None),
    5: ("Ridership Summary", "Table 2. Annual unlinked passenger trips"),
    6: ("Operating Revenue", None),
    7: ("Sales Tax and Public Funding", None),
    8: ("Fare Revenue and Fare Policy", None),
    9: ("Ridership by Region and Quarter", None),
    10: ("Bus Operations", None),
    11: ("Rail Operations", None),
    12: ("Paratransit Services", None),
    13: ("Capital Improvement Program", "Table 4. Five-year capital program"),
    14: ("Debt Service", None),
    15: ("Staffing Plan", "Table 5. Budgeted positions"),
    16: ("Fare Structure", None),
    17: ("Operating Expenses by Department", None),
    18: ("Glossary of Budget Terms", None),
}

SENTENCES = [
    "The Authority operates fixed-route bus, light rail and demand-response service across a four-county region of 1.9 million residents.",
    "The adopted budget balances recurring expenses against recurring revenue for the third consecutive year.",
    "Operating expenses are projected to grow 4.1 percent, driven mainly by labor agreements ratified in the prior year.",
    "Sales tax receipts are budgeted at the level certified by the State Department of Revenue in its March forecast.",
    "Ridership continued to recover, reaching 87 percent of the pre-pandemic baseline by the fourth quarter.",
    "The Board adopted the budget by resolution at its regular meeting, following two public hearings.",
    "Paratransit trips are provided under contract and are budgeted on a cost-per-trip basis.",
    "Fuel costs are hedged for approximately 70 percent of expected consumption through the end of the fiscal year.",
    "The capital program is funded by a combination of federal formula grants, state matching funds and bond proceeds.",
    "Positions added in this budget are concentrated in maintenance, where vacancy rates have affected service reliability.",
    "A reserve equal to two months of operating expenses is maintained in accordance with Board policy.",
    "Fare revenue assumes no change in base fares; the reduced-fare program is funded separately by the State.",
    "Service hours are budgeted at 2.4 million for bus and 410,000 for rail, consistent with the adopted service plan.",
    "Debt service on outstanding sales tax revenue bonds is paid from a dedicated portion of the regional sales tax.",
]


FILL_WORDS = {3: "the", 4: "year", 5: "total", 6: "budget", 7: "figures", 8: "adjusted", 9: "operating",
              10: "accounting", 11: "performance", 12: "expenditures"}
TAIL_WORDS = ["shown", "here", "reflect", "the", "adopted", "budget", "and", "exclude", "interfund", "transfers"]


def prose_to(length, seed):
    """Whole sentences, varied, then a closing sentence sized to make exactly `length`."""
    rng = random.Random(seed)
    pool = []
    text = ""
    while True:
        if not pool:
            pool = rng.sample(SENTENCES, len(SENTENCES))
        if len(text) + len(pool[-1]) + 1 > length - 40:
            break
        text += pool.pop() + " "
    tail = "Figures"
    rem = length - len(text) - len(tail)
    i = 0
    while rem > 14:
        w = TAIL_WORDS[i % len(TAIL_WORDS)]
        i += 1
        tail += " " + w
        rem -= len(w) + 1
    tail += " " + FILL_WORDS[rem - 2] + "."
    out = text + tail
    assert len(out) == length, (len(out), length)
    return out


def html_to(length, before, after, seed):
    """`before` + a paragraph of prose + `after`, exactly `length` characters."""
    room = length - len(before) - len(after) - len("<p></p>")
    assert room > 10, room
    return before + "<p>" + prose_to(room, seed) + "</p>" + after


def paragraphs(rng, n):
    return "".join(f"<p>{' '.join(rng.sample(SENTENCES, 3))}</p>" for _ in range(n))


def money(rng, lo, hi):
    return f"{rng.randrange(lo, hi) * 100:,}"


def table(caption, header_rows, rows, note=None):
    out = f"<table><caption>{caption}</caption><thead>"
    for hr in header_rows:
        out += "<tr>" + "".join(hr) + "</tr>"
    out += "</thead><tbody>"
    for r in rows:
        out += "<tr><th scope=\"row\">" + r[0] + "</th>" + "".join(f"<td>{c}</td>" for c in r[1:]) + "</tr>"
    out += "</tbody></table>"
    if note:
        out += f"<p class=\"table-note\">{note}</p>"
    return out


def simple_header(cols):
    return ["<th scope=\"col\">" + c + "</th>" for c in cols]


def budget_page(rng, n):
    title, sub = BUDGET_PAGES[n]
    if n == 1:
        return f"<h1>{title}</h1><p class=\"subtitle\">{sub}</p><p>Adopted by the Board of Directors, June 2023</p>"
    html = f"<h2>{title}</h2>" + paragraphs(rng, 2 if sub else 3)
    if sub:
        rows = [[d] + [money(rng, 20000, 900000) for _ in range(3)] for d in rng.sample(DEPTS, 7)]
        html += table(sub, [simple_header(["", "FY2022 Actual", "FY2023 Budget", "FY2024 Adopted"])], rows)
    if n == 18:
        html = f"<h2>{title}</h2><dl>" + "".join(
            f"<dt>{t}</dt><dd>{d}</dd>" for t, d in [
                ("Adopted budget", "The budget as approved by the Board, including amendments made at adoption."),
                ("Farebox recovery", "The share of operating expenses paid by passenger fares."),
                ("Unlinked trip", "One boarding of one vehicle; a transfer counts as a second trip."),
                ("Service hour", "One hour of a vehicle in revenue service."),
            ]) + "</dl>"
    return html


# --- Table 3 on page 17: the long correction ---------------------------------

def table3_rows(rng, count):
    rows = []
    for d in DEPTS[:count]:
        a, b = rng.randrange(900, 60000), rng.randrange(900, 60000)
        adopted = int(b * 104.1)
        change = (adopted - a * 100) * 100 / (a * 100)
        rows.append([d, f"{a * 100:,}", f"{int(a * 103.2):,}", f"{b * 100:,}", f"{adopted:,}", f"{change:+.1f}%"])
    return rows


T3_HEADER = [
    ["<th scope=\"col\" rowspan=\"2\">Department</th>", "<th scope=\"colgroup\" colspan=\"2\">FY2023</th>",
     "<th scope=\"colgroup\" colspan=\"2\">FY2024</th>", "<th scope=\"col\" rowspan=\"2\">Change</th>"],
    simple_header(["Budget", "Actual", "Requested", "Adopted"]),
]
T3_COLS = ["FY2023 budget", "FY2023 actual", "FY2024 requested", "FY2024 adopted", "change"]


def transposed(v):
    digits = [i for i, c in enumerate(v) if c.isdigit()]
    if len(digits) < 4:
        return v
    i, j = digits[-5], digits[-4]
    out = list(v)
    out[i], out[j] = out[j], out[i]
    return "".join(out)


def row_checks(rows, passes):
    """A model re-reading a table cell by cell, in a few phrasings."""
    lines = []
    for p in range(passes):
        for i, r in enumerate(rows, 1):
            for col, label in enumerate(T3_COLS, 1):
                v = r[col]
                if p == 0 and (i * 7 + col) % 23 == 0:
                    lines.append(f"Row {i}, {r[0]}, {label}: the image reads {v}; my page had {transposed(v)}, two digits transposed. That is one of the flagged values, corrected.\n")
                elif p == 0:
                    lines.append(f"Row {i}, {r[0]}, {label}: the image reads {v}, and so does my page.\n")
                elif p == 1:
                    lines.append(f"Second pass, row {i} ({r[0]}), {label}: {v} in the scan, {v} in the corrected row.\n")
                else:
                    lines.append(f"Before the final version, {r[0]} {label} once more: {v}.\n")
    return lines


def long_correction():
    """62,017 characters, seven envelopes: the first the 62-character template at 33,748,
    the seventh the real page at 53,207 with 7,121 characters of table."""
    rows = table3_rows(random.Random(170), 38)
    text = (
        "I'll carefully re-read the image for all the flagged values, row by row, before rewriting anything. "
        "The verifier said three figures in Table 3 do not match the scan and that the table stops short of the page. "
        "The scan is a landscape page with a two-level header: FY2023 (budget, actual) and FY2024 (requested, adopted), "
        "a change column, then one row per department.\n\n"
    )
    checks = iter(row_checks(rows, 3))
    lead = "\n\nLet me write down the envelope shape first so I do not lose it:\n\n"
    for line in checks:
        if len(text) + len(line) > 33748 - len(lead) - 60:
            break
        text += line
    text += "The last visible row is followed by a continuation line".ljust(33748 - len(lead) - len(text) - 1, ".") + "."
    text += lead
    template = '{\n  "html": "...",\n  "log": "...",\n  "suggested_agent": null\n}'
    assert len(template) == 62 and len(text) == 33748, len(text)
    text += template
    caption = "Table 3. Operating expenses by department"
    drafts = [
        ("\n\nNow fill it, first with the rows I have already checked, 1 to 10:\n\n",
         table(caption, T3_HEADER[1:], rows[:10]), "Page 17. Draft: rows 1-10 of Table 3."),
        ("\n\nThat draft lost the FY2023 and FY2024 group headers. Again, rows 1 to 10, with both header rows:\n\n",
         table(caption, T3_HEADER, rows[:10]), "Page 17. Draft: rows 1-10, header fixed."),
        ("\n\nContinuing to row 25:\n\n",
         table(caption, T3_HEADER, rows[:25]), "Page 17. Draft: rows 1-25."),
        ("\n\nI dropped the change column in that one. Rows 1 to 25 again, five figures each:\n\n",
         table(caption, T3_HEADER, [r[:5] for r in rows[:25]]), "Page 17. Draft: rows 1-25, all columns."),
        ("\n\nAll 38 rows now, but I have not said the table continues:\n\n",
         table(caption, T3_HEADER, rows), "Page 17. Draft: all rows."),
    ]
    for lead, html, log in drafts:
        text += lead + envelope(html, log)
    text += "\n\n"
    lead = "\n\nThat is everything. The final page, with the three corrected values and the continuation note:\n\n"
    for line in checks:
        if len(text) + len(line) > 53207 - len(lead) - 40:
            break
        text += line
    text += "All three corrected figures match the scan".ljust(53207 - len(lead) - len(text) - 1, ".") + "."
    text += lead
    assert len(text) == 53207, len(text)
    final_table = table(caption + " (in dollars)", T3_HEADER, rows)
    final_html = html_to(7121, "<h2>Operating Expenses by Department</h2>", final_table + "<p class=\"continued\">Table 3 continues on the next page.</p>", 17)
    text += envelope(final_html, "Page 17. Table 3 continues beyond this page")
    tail = (
        "\n\nThis replaces the whole page. The three flagged values (digits transposed) are corrected "
        "to the scan, every one of the 38 department rows is present, the two-level header is kept with its "
        "column groups, and the page ends with the continuation note because the table runs on to page 18. "
    )
    text += tail
    text += "No other content on the page changed".ljust(62017 - len(text) - 1, ".") + "."
    assert len(text) == 62017
    return text


# --- page 9: four fenced envelopes, the first three abandoned drafts ------------

def quarter_table(rng, caption, regions, quarters, fmt, note=None):
    header = [simple_header(["Region"] + quarters)]
    rows = [[r] + [fmt(rng) for _ in quarters] for r in regions]
    return table(caption, header, rows, note)


def trips(rng):
    return f"{rng.randrange(200, 9000) * 100:,}"


def four_fenced():
    rng = random.Random(9)
    q8 = [f"Q{q} FY{y}" for y in (2023, 2024) for q in range(1, 5)]
    q12 = [f"Q{q} FY{y}" for y in (2022, 2023, 2024) for q in range(1, 5)]
    cap = "Table 6. Unlinked passenger trips by region and quarter"
    h2 = "<h2>Ridership by Region and Quarter</h2>"
    d1 = html_to(2253, h2, quarter_table(rng, cap, REGIONS[:3], q8, trips), 91)
    d2 = h2 + quarter_table(rng, cap, REGIONS, q12[:8], trips)
    d3 = h2 + quarter_table(rng, cap, REGIONS, q12, trips)
    rows = REGIONS + [f"{r} express" for r in REGIONS] + ["Systemwide"]
    tables = (
        quarter_table(rng, cap, rows, q12, trips, "Q3 FY2023, Southeast: service suspended during the bridge closure; no trips reported.")
        + quarter_table(rng, "Table 7. Change from the same quarter a year earlier", rows, q12, lambda r: f"{r.uniform(-12, 25):+.1f}%")
        + quarter_table(rng, "Table 8. Revenue hours by region and quarter", rows[:6] + rows[-1:], q12, lambda r: f"{r.randrange(9000, 99000):,}")
    )
    final = html_to(13182, h2, tables, 92)
    assert len(d1) == 2253 and len(final) == 13182
    return (
        "Page 9 is a dense table: ridership by region and quarter. I'll transcribe it in pieces.\n\n"
        "```json\n" + envelope(d1, "Draft: first three regions only. If the quarter headers do not line up, RESTART.") + "\n```\n\n"
        "The quarter headers do not line up: the scan has twelve quarter columns, not eight.\n\n"
        "```json\n" + envelope(d2, "RESTART") + "\n```\n\n"
        "Still short: FY2022 is missing. Trying the full width.\n\n"
        "```json\n" + envelope(d3, "Intermediate attempt abandoned — column count in the Southeast row does not match") + "\n```\n\n"
        "The Southeast row has a merged cell in Q3 FY2023 (service suspended), which I had dropped, so every "
        "later cell in that row was shifted one column left. With the express rows, the systemwide total and the "
        "two tables below it:\n\n"
        "```json\n" + envelope(final, "Page 9. Ridership by region and quarter, FY2022-FY2024; three tables; one suspended cell noted.") + "\n```\n"
    )


# --- the Feedback Agent ---------------------------------------------------------

def verdict(faithful, problems=(), notes="The page matches the image."):
    return model_json({"faithful": faithful, "problems": list(problems), "notes": notes})


def decoy_verdict(n, faithful=True):
    problems = [] if faithful else [{"issue": f"The total in the last row of page {n} does not match the image.", "severity": "major"}]
    return (
        f"Checking page {n} against the image. The contract is {{html, log, suggested_agent}} and the output "
        f"follows it; what matters is whether the html says what the page says. Headings match, the paragraph "
        f"text matches, and the table has the same rows in the same order.\n\n" + verdict(faithful, problems)
    )


def verdict_339():
    """Notes quoting the contract back, with no string values in the quote: the narrow
    reading of the whole reply is taken (issue #339)."""
    return (
        '{ "faithful": false, "problems": [{ "issue": "The row Capital reserve is missing from Table 4; the image shows it between Fleet replacement and Facilities.", "severity": "major" }],\n'
        '"notes": "I first read the contract as { "faithful": true, "problems": [] }; it is not: a row is missing." }'
    )


def residual_fenced():
    return (
        "```json\n"
        '{ "faithful": false, "problems": [{ "issue": "Footnote 2 under Table 1 is missing.", "severity": "minor" }],\n'
        '"notes": "I first read the contract as { "faithful": true, "problems": [] }; it is not." }\n'
        "```"
    )


def residual_preamble():
    return (
        "Here is my verdict on page 7.\n"
        '{ "faithful": false, "problems": [{ "issue": "The second paragraph ends early; the image continues with the State match.", "severity": "major" }],\n'
        '"notes": "I first read the contract as { "faithful": true, "problems": [] }; it is not." }'
    )


def residual_comma():
    return (
        '{ "faithful": false, "problems": [{ "issue": "Fare table has the senior and youth columns swapped.", "severity": "major" }],\n'
        '"notes": "I first wrote { "faithful": true, "problems": [] } and then checked the columns; "faithful", in the contract\'s sense, it is not." }'
    )


def residual_string_value():
    return (
        '{ "faithful": false, "problems": [{ "issue": "Staffing totals row is missing.", "severity": "major" }],\n'
        '"notes": "I first read the contract as { "faithful": true, "problems": [], "notes": "" }; it is not." }'
    )


def brace_for_bracket():
    return (
        '{"faithful": false, "problems": [{"issue": "The heading Debt Service is rendered as a paragraph.", "severity": "minor"}, '
        '{"issue": "The bond series table is missing its last row.", "severity": "major"}}, '
        '"notes": "Two problems."}'
    )


# --- risky shapes: readings the seed makes exactly, that look like its failures ----

def template_only():
    """A page reply that is the scratch template and nothing after it: the answer's html is a
    placeholder (the shape of the 62-character template of the long correction, alone)."""
    return (
        "I'll set out the envelope first and then fill in the table from the image.\n\n"
        + model_json({"html": "<page html>", "log": "...", "suggested_agent": None})
    )


def contract_after_answer(html, log):
    """A page that answers, then quotes the contract back: the quotation is the last object."""
    return (
        envelope(html, log)
        + '\n\nThat follows the contract, {"html": "", "log": "", "suggested_agent": null}, with the table as one '
        "element and nothing outside the envelope."
    )


def stopped_in_html(rng):
    """A page whose model stopped mid-string (`end_turn`), its complete `suggested_agent`
    written first: the walk's answer is that child, inside the envelope that never closes."""
    rows = "".join(
        f"<tr><th>{name}</th><td>{money(rng, 2, 40)}</td><td>{money(rng, 1, 20)}</td></tr>"
        for name in ("Bus Rapid Transit, Corridor 2", "Maintenance facility roof", "Light rail signal upgrade")
    )
    return (
        '{"suggested_agent": {"name": "table-agent", "reason": "the project list continues on the next page"}, '
        '"log": "Page 4. Project list, part 1.", "html": "<h2>Project List</h2><table><caption>Capital projects, '
        f'FY2025-2029 ($ millions)</caption><tr><th>Project</th><th>Total</th><th>FY2025</th></tr>{rows}<tr><th>Bridge'
    )


# --- page shapes from the seeds ------------------------------------------------

def backslash_title():
    return (
        '{"html": "<h1>Performance Measures Report 2023</h1><p class=\\"subtitle\\">Department of Transportation</p>'
        "<p>The cover shows the title between two bands of decorative diagonal slash marks (visible as '\\' before 'MEASURES'); "
        'they are decoration and are not transcribed.</p>", "log": "Page 1. Title page; decorative slash marks described, not transcribed.", "suggested_agent": null}'
    )


def blockquote_page():
    return (
        '{ "html": "<h2>Statutory Purpose</h2><p>The enabling statute sets out the purposes of the program:</p>'
        '<blockquote><p>"(1) bring together representatives of the State, the counties and the transit operators to '
        "coordinate service across jurisdictional lines; (2) measure the performance of that service against published "
        'targets; and (3) report the results to the public each year."</p></blockquote><p>The measures in this report '
        'respond to each of the three purposes in turn.</p>", "log": "Page 2. Statute quoted in a blockquote.", "suggested_agent": null }'
    )


def event_handler_page():
    detail = (
        "<p>On-time performance is the share of timepoint departures between one minute early and five minutes late.</p>"
        "<p>Data come from the automatic vehicle location system for all weekday trips.</p>"
    )
    bad = (
        "<h2>Measure 4: On-Time Performance</h2><p>Target: 85 percent. Result: 81.2 percent.</p>"
        "<button type=\"button\" aria-expanded=\"false\" aria-controls=\"m4\" onclick=\"var d = document.getElementById('m4'); "
        "d.hidden = !d.hidden; this.setAttribute('aria-expanded', String(!d.hidden))\">Show how this is measured</button>"
        f"<div id=\"m4\" hidden>{detail}</div>"
    )
    good = (
        "<h2>Measure 4: On-Time Performance</h2><p>Target: 85 percent. Result: 81.2 percent.</p>"
        f"<details><summary>Show how this is measured</summary>{detail}</details>"
    )
    first = envelope(bad, "Page 4. Measure 4 with an expandable definition.")
    log2 = "Page 4. Measure 4; definition in a details element."
    second = envelope(good, log2)
    # The corrected envelope is 85 characters shorter than the one it replaces.
    second = envelope(good, pad_to(log2, len(log2) + (len(first) - 85 - len(second)), [" No inline handler."]))
    assert len(first) - len(second) == 85, len(first) - len(second)
    return (
        "```json\n" + first + "\n```\n\n"
        "Wait: that uses an inline event handler (onclick), and the output rules forbid scripts and inline event "
        "handlers. A details element gives the same disclosure with neither. Corrected:\n\n"
        "```json\n" + second + "\n```"
    )


def restart_plain():
    return (
        '{"html": "<h2>Financial Highlights</h2><p>Table 3 continues on the next page. The figures for FY2023 are\n'
        '{"html": "<h2>Financial Highlights</h2><p>Operating revenue rose 6 percent to $412 million, and operating '
        'expenses rose 4 percent to $1.02 billion.</p><p>The farebox recovery ratio improved from 17.9 to 18.6 percent.</p>", '
        '"log": "Page 2. Financial highlights.", "suggested_agent": null}'
    )


def restart_with_brace():
    return (
        '{"html": "<h2>Message Templates</h2><p>The draft continues\n'
        '{"html": "<h2>Message Templates</h2><p>Rider alerts close every placeholder with the } token.</p>", '
        '"log": "Page 3. Alert templates.", "suggested_agent": null}'
    )


def restart_unreadable():
    """A restart whose own object does not parse: the walk stops on a fragment inside it,
    and the whole-reply reading is refused by the brace test instead."""
    return (
        '{"html": "<p>Table 3 continues\n{"html": "<table><caption>Routes, with "Total": all routes</caption>'
        '<tr><th>Route 4</th><td>4,812</td></tr></table>", "log": "Page 3. Restarted.", '
        '"suggested_agent": {"name": "table-agent", "reason": "merged header cells"}}'
    )


def bare_html_page():
    rng = random.Random(5)
    html = "<h2>Outlook for FY2025</h2>"
    while len(html) < 11000:
        html += f"<p>{' '.join(rng.sample(SENTENCES, 4))}</p>"
    return html + "<p>With the bridge reopened and the new fare system in service, the Authority expects to"


def reader_quoting_html():
    issues = [
        {"severity": "major", "pages": [2], "issue": "The Financial Highlights section repeats its opening words.", "suggested_action": "Remove the repeated fragment."},
        {"severity": "major", "pages": [3], "issue": "The placeholder list in Message Templates is cut off.", "suggested_action": "Restore the list from the source page."},
        {"severity": "minor", "pages": [4], "issue": "The chart has no text alternative.", "suggested_action": "Add a short description of the trend it shows."},
        {"severity": "minor", "pages": [5], "issue": "The Outlook section ends mid-sentence.", "suggested_action": "Flag the page for re-extraction."},
        {"severity": "minor", "pages": [1, 5], "issue": "Heading levels skip from h1 to h3.", "suggested_action": "Make the section headings h2."},
    ]
    return (
        'Reading the assembled document. One thing first: earlier drafts of this report came back with pages whose text began {"html":" '
        "followed by markup, which is an envelope delivered as content; that is not the case here, every page is markup.\n\n"
        + model_json({"issues": issues})
    )


def reader_verdict(issues):
    return model_json({"issues": issues})


# --- the run simulator ------------------------------------------------------------

class Run:
    """Events of one run, placed in time and interleaved as parallel lanes interleave them."""

    def __init__(self, start, model, provider, api=None):
        self.t0 = start
        self.events = []
        self.seq = 0
        self.model = model
        self.provider = provider
        self.api = api

    def at(self, ms, event):
        self.seq += 1
        self.events.append((ms, self.seq, event))

    def ts(self, ms):
        t = self.t0 + datetime.timedelta(milliseconds=ms)
        return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"

    def call(self, ms, agent, step, capability, duration, output, phase, image=None, out_tokens=None, fail=None, in_tokens=2900):
        meta = {"agent": agent, "step": step, "capability": capability, "model": self.model, "provider": self.provider}
        if self.api:
            meta["api"] = self.api
        self.at(ms, {"type": "model_call_start", **meta})
        end = ms + duration
        usage = {"input_tokens": in_tokens, "cache_read_input_tokens": 1840 if agent == "feedback" else 0,
                 "cache_creation_input_tokens": 0}
        if fail:
            self.at(end, {"type": "model_call", **meta, "duration_ms": duration, "ok": False, "error": fail, **usage,
                          **({"output_tokens": out_tokens} if out_tokens else {})})
            return end
        tokens = out_tokens if out_tokens is not None else max(20, len(output) * 10 // 36)
        self.at(end, {"type": "model_call", **meta, "duration_ms": duration, "ok": True, **usage, "output_tokens": tokens})
        self.at(end + 3, {"type": "agent_call", "phase": phase, "agent": f"{agent}.md", "image": image,
                          "capabilities": [capability], "agent_sha": sha(agent + ".md"), "agent_content": None,
                          "output": output})
        return end + 3

    def lines(self):
        out = []
        for ms, _, e in sorted(self.events, key=lambda x: (x[0], x[1])):
            out.append(js({"ts": self.ts(ms), **e}))
        return "".join(line + "\n" for line in out)

    def span_ms(self):
        return max(ms for ms, _, _ in self.events)


def extract_pages(run, base, pages, lanes=3, start=900):
    """`pages`: {n: {"page": text, "verdict": text, "ok": bool, "correction": text?, ...}}."""
    free = [start + 40 * i for i in range(lanes)]
    rng = random.Random(len(pages))
    for n in sorted(pages):
        p = pages[n]
        lane = min(range(lanes), key=lambda i: free[i])
        t = free[lane]
        image = f"{base}-p{n}.png"
        if p.get("page_fail"):
            end = run.call(t, "page", "page", "vision", p["page_fail"][0], None, "extraction", image, fail=p["page_fail"][1])
            free[lane] = end + 10
            continue
        t = run.call(t, "page", "page", "vision", 9000 + rng.randrange(30000) + len(p["page"]) // 2, p["page"],
                     "extraction", image, out_tokens=p.get("out_tokens"))
        t = run.call(t + 20, "feedback", "verify", "vision", 4000 + rng.randrange(9000), p["verdict"], "extraction", image)
        problems = p.get("problems", [])
        run.at(t + 4, {"type": "page_verify_ok", "image": image} if p["ok"] else
               {"type": "page_verify_failed", "image": image, "problems": problems})
        t += 10
        if "correction" in p:
            t = run.call(t, "page", "correct", "vision", 20000 + len(p["correction"]) * 3, p["correction"], "extraction", image)
        free[lane] = t + 10
    return max(free)


def review(run, t, rounds):
    """`rounds`: [(reader_text, issues, editor_text or ('fail', error) or None)]."""
    run.at(t, {"type": "phase", "phase": "review"})
    t += 50
    for i, (reader_text, issues, editor) in enumerate(rounds):
        t = run.call(t, "reader", "review", "text", 30000 + len(reader_text) * 4, reader_text, "review", in_tokens=24000)
        run.at(t + 2, {"type": "reader", "iteration": i, "issues": issues})
        t += 20
        if editor is None:
            break
        run.at(t, {"type": "editor_images", "attached": 2, "of": 18, "pages": [3, 17]})
        if isinstance(editor, tuple):
            t = run.call(t + 5, "copy_editor", "review", "vision", 600000, None, "review", fail=editor[1],
                         out_tokens=32000, in_tokens=41000)
        else:
            t = run.call(t + 5, "copy_editor", "review", "vision", 90000 + len(editor) * 2, editor, "review", in_tokens=41000)
        run.at(t + 2, {"type": "editor", "iteration": i + 1})
        t += 20
    return t


TRUNCATION = ("{0}: response hit the 32000-token output ceiling and was truncated ({1} chars returned). "
              "Raise providers.{0}.max_tokens.")
STALL = ("bedrock: the model stopped sending output for 120s (2314 chars had streamed) on {}, so the call was "
         "abandoned. The connection stalled rather than the work being too slow — a healthy stream is never silent this long.")


def finish(run, t, ok, iterations=0, unresolved=0, error=None):
    if ok:
        run.at(t + 30, {"type": "run_complete", "iterations": iterations, "unresolved": unresolved, "mode": "full"})
    else:
        run.at(t + 30, {"type": "run_failed", "error": error})


def diagnostics(run, session, status, phase):
    calls = [e for _, _, e in run.events if e["type"] == "model_call"]
    by_agent = {}
    for c in calls:
        a = by_agent.setdefault(c["agent"], {"count": 0, "total_ms": 0, "max_ms": 0, "input_tokens": 0, "output_tokens": 0,
                                             "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0})
        a["count"] += 1
        a["total_ms"] += c["duration_ms"]
        a["max_ms"] = max(a["max_ms"], c["duration_ms"])
        for k in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
            a[k] += c.get(k, 0)
    total = sum(c["duration_ms"] for c in calls)
    elapsed = run.span_ms()
    slowest = sorted(calls, key=lambda c: -c["duration_ms"])[:5]
    errors = [{"ts": None, "type": "model_call", "message": c["error"]} for c in calls if not c["ok"]]
    return json.dumps({
        "session_id": session, "status": status, "phase": phase,
        "started_at": run.ts(0), "last_event_at": run.ts(elapsed), "elapsed_ms": elapsed,
        "in_flight": None, "in_flight_count": 0,
        "phase_durations_ms": {"extraction": int(elapsed * 0.7), "review": int(elapsed * 0.3)},
        "model_calls": {"count": len(calls), "failed": sum(1 for c in calls if not c["ok"]), "total_ms": total,
                        "avg_ms": total // max(1, len(calls)), "max_ms": max(c["duration_ms"] for c in calls),
                        "concurrency_factor": round(total / max(1, elapsed), 2)},
        "tokens": {"input": sum(c.get("input_tokens", 0) for c in calls), "output": sum(c.get("output_tokens", 0) for c in calls),
                   "cache_read": sum(c.get("cache_read_input_tokens", 0) for c in calls), "cache_write": 0,
                   "calls_reported": len(calls)},
        "by_agent": by_agent,
        "slowest_calls": [{"agent": c["agent"], "model": c["model"], "capability": c["capability"],
                           "duration_ms": c["duration_ms"], "ok": c["ok"]} for c in slowest],
        "errors": errors,
    }, indent=2)


def page_html_of(reply):
    """The html a page reply delivers, for output.html (good enough for a sample)."""
    try:
        return json.loads(reply)["html"]
    except Exception:
        return ""


def write_run(campaign, doc, run, meta, session, outcome, pages_html, iterations, ledger, title):
    d = campaign / doc
    write(d / "log.jsonl", run.lines())
    status = {"session_id": session, "status": outcome if outcome != "failed" else "failed",
              "phase": "done" if outcome == "ready_for_review" else "extraction", "pages": meta["pages"],
              "iterations_completed": iterations, "created_at": run.ts(0), "updated_at": run.ts(run.span_ms()),
              "error": None}
    if outcome == "failed":
        status["error"] = [e for _, _, e in run.events if e["type"] == "run_failed"][0]["error"]
    write(d / "status.json", json.dumps(status, indent=2))
    write(d / "diagnostics.json", diagnostics(run, session, status["status"], status["phase"]))
    if outcome == "ready_for_review":
        body = "\n".join(f"<section aria-label=\"Page {n}\">{h}</section>" for n, h in sorted(pages_html.items()))
        write(d / "output.html", f"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head>\n<body><main>\n{body}\n</main></body></html>\n")
    meta = dict(meta, session_id=session, outcome=outcome, round_trip_ms=run.span_ms() + 41000,
                queue_wait_ms=2100, polls=run.span_ms() // 5000 + 1, http_status=201,
                submitted_at=run.ts(-2100), error=status["error"])
    write(d / "meta.json", json.dumps(meta, indent=2))
    ledger.append({"id": doc, "session_id": session, "outcome": outcome, "round_trip_ms": meta["round_trip_ms"],
                   "at": run.ts(run.span_ms() + 41000)})


def doc_meta(doc, url, pages):
    return {"id": doc, "url": url, "sha256": hashlib.sha256(url.encode()).hexdigest(), "parent_sha": None,
            "page_from": None, "page_to": None, "pages": pages, "bytes": 180000 * pages, "risks": [],
            "base": "https://iris.example.org/v1", "submitted_at": None, "round_trip_ms": None,
            "queue_wait_ms": None, "polls": 0, "outcome": None, "http_status": None, "error": None, "session_id": None}


BUDGET = "3f1c9a0e7b2d4c58"
MEASURES = "8a0d54e1c3b97f26"
GRANTS = "c47e2b9915fa0d83"
ANNUAL = "5be7f03a21c6d9e4"
ATLAS = "e91a6c2d08b4f375"
CAPITAL = "9d42b7e0c5a13f68"


def budget_pages(seed, overrides):
    rng = random.Random(seed)
    pages = {}
    for n in range(1, 19):
        html = budget_page(rng, n)
        pages[n] = {"page": envelope(html, f"Page {n}. {BUDGET_PAGES[n][0]}."), "verdict": verdict(True), "ok": True, "html": html}
    for n, o in overrides.items():
        pages[n].update(o)
    return pages


def round4(campaign):
    ledger = []
    # The budget: the long correction on page 17, four fenced envelopes on page 9, decoys.
    run = Run(datetime.datetime(2025, 5, 12, 14, 2, 11, 0), "us.anthropic.claude-sonnet-4-20250514-v1:0", "bedrock", "invoke")
    run.at(0, {"type": "run_start", "pages": 18, "mode": "full"})
    run.at(40, {"type": "phase", "phase": "extraction"})
    run.at(60, {"type": "extraction_start", "pages": 18, "concurrency": 3})
    p17_problems = [{"issue": "Three values in Table 3 do not match the image (Paratransit, Fare collection, Utilities).", "severity": "major"},
                    {"issue": "Table 3 stops after 24 rows; the image has 38 and a continuation line.", "severity": "major"}]
    rng = random.Random(17)
    short_t3 = "<h2>Operating Expenses by Department</h2>" + table("Table 3. Operating expenses by department", T3_HEADER, table3_rows(rng, 24))
    pages = budget_pages(4, {
        3: {"verdict": decoy_verdict(3)},
        5: {"verdict": decoy_verdict(5)},
        9: {"page": four_fenced()},
        12: {"verdict": decoy_verdict(12, faithful=False), "ok": False,
             "problems": [{"issue": "The total in the last row of page 12 does not match the image.", "severity": "major"}],
             "correction": envelope(budget_page(random.Random(12), 12), "Page 12. Corrected the total row.")},
        17: {"page": envelope(short_t3, "Page 17. Table 3."), "verdict": verdict(False, p17_problems, "Table 3 needs a second look."),
             "ok": False, "problems": p17_problems, "correction": long_correction()},
    })
    t = extract_pages(run, "rta-budget-fy2024", pages)
    run.at(t + 10, {"type": "assembly", "pages": 18, "fragments": 18})
    t = review(run, t + 40, [
        (reader_verdict([{"severity": "major", "pages": [9], "issue": "Table 6 has no row headers marked.", "suggested_action": "Mark the region cells as row headers."},
                         {"severity": "minor", "pages": [18], "issue": "The glossary is a list of paragraphs.", "suggested_action": "Use a description list."}]), 2,
         model_json({"html": "".join(p["html"] for _, p in sorted(pages.items()))})),
        (reader_verdict([]), 0, None),
    ])
    finish(run, t, True, iterations=1)
    html = {n: page_html_of(p.get("correction", p["page"])) or p["html"] for n, p in pages.items()}
    write_run(campaign, BUDGET, run, doc_meta(BUDGET, "https://transit.example.gov/budget/fy2024-adopted.pdf", 18),
              "s-4d1e0a7b", "ready_for_review", html, 1, ledger, "FY2024 Adopted Budget")

    # The performance-measures report: backslash, blockquote, inline handler, issue #339.
    run = Run(datetime.datetime(2025, 5, 12, 14, 4, 51, 0), "us.anthropic.claude-sonnet-4-20250514-v1:0", "bedrock", "invoke")
    run.at(0, {"type": "run_start", "pages": 6, "mode": "full"})
    run.at(40, {"type": "phase", "phase": "extraction"})
    rng = random.Random(6)
    simple = lambda n, title: envelope(f"<h2>{title}</h2>" + paragraphs(rng, 2), f"Page {n}. {title}.")
    problems_339 = [{"issue": "The row Capital reserve is missing from Table 4.", "severity": "major"}]
    pages = {
        1: {"page": backslash_title(), "verdict": verdict(True, notes="Decoration described, not transcribed: correct."), "ok": True},
        2: {"page": blockquote_page(), "verdict": verdict(True), "ok": True},
        3: {"page": envelope("<h2>Measure 3: Capital Program Delivery</h2>" + table("Table 4. Capital reserve and programs",
                             [simple_header(["Program", "Budget", "Spent"])], [["Fleet replacement", "41,200,000", "38,950,000"], ["Facilities", "12,700,000", "9,100,000"]]),
                             "Page 3. Measure 3."),
            "verdict": verdict_339(), "ok": False, "problems": problems_339,
            "correction": envelope("<h2>Measure 3: Capital Program Delivery</h2>" + table("Table 4. Capital reserve and programs",
                                   [simple_header(["Program", "Budget", "Spent"])], [["Fleet replacement", "41,200,000", "38,950,000"],
                                   ["Capital reserve", "5,000,000", "0"], ["Facilities", "12,700,000", "9,100,000"]]), "Page 3. Added the Capital reserve row.")},
        4: {"page": event_handler_page(), "verdict": verdict(True), "ok": True},
        5: {"page": simple(5, "Measure 5: Customer Satisfaction"), "verdict": decoy_verdict(5), "ok": True},
        6: {"page": simple(6, "Measure 6: Safety"), "verdict": verdict(True), "ok": True},
    }
    t = extract_pages(run, "performance-measures-2023", pages, lanes=2)
    t = review(run, t + 40, [(reader_verdict([]), 0, None)])
    finish(run, t, True)
    html = {n: page_html_of(p.get("correction", p["page"])) for n, p in pages.items()}
    write_run(campaign, MEASURES, run, doc_meta(MEASURES, "https://dot.example.gov/reports/performance-measures-2023.pdf", 6),
              "s-9b21c4e0", "ready_for_review", html, 0, ledger, "Performance Measures Report 2023")

    # The grant guide: a page call stalls and the run fails.
    run = Run(datetime.datetime(2025, 5, 12, 14, 9, 2, 0), "us.anthropic.claude-sonnet-4-20250514-v1:0", "bedrock", "invoke")
    run.at(0, {"type": "run_start", "pages": 4, "mode": "full"})
    run.at(40, {"type": "phase", "phase": "extraction"})
    rng = random.Random(44)
    pages = {n: {"page": envelope(f"<h2>Section {n}</h2>" + paragraphs(rng, 2), f"Page {n}."), "verdict": verdict(True), "ok": True} for n in (1, 2, 3)}
    pages[4] = {"page_fail": (121400, STALL.format("us.anthropic.claude-sonnet-4-20250514-v1:0"))}
    t = extract_pages(run, "small-business-grants", pages, lanes=2)
    finish(run, t, False, error="page 4: " + STALL.format("us.anthropic.claude-sonnet-4-20250514-v1:0"))
    write_run(campaign, GRANTS, run, doc_meta(GRANTS, "https://econdev.example.gov/grants/guide.pdf", 4),
              "s-2f70d5a9", "failed", {}, 0, ledger, "")
    write(campaign / "ledger.jsonl", "".join(js(e) + "\n" for e in ledger))


def round5(campaign):
    ledger = []
    # The budget again: verdicts the whole-reply reading cannot help, a `}` for a `]`, a truncated edit round.
    run = Run(datetime.datetime(2025, 5, 19, 9, 30, 5, 0), "anthropic/claude-sonnet-4.5", "openrouter")
    run.at(0, {"type": "run_start", "pages": 18, "mode": "full"})
    run.at(40, {"type": "phase", "phase": "extraction"})
    fix = lambda n, issue: {"ok": False, "problems": [{"issue": issue, "severity": "major"}],
                            "correction": envelope(budget_page(random.Random(500 + n), n), f"Page {n}. Corrected.")}
    pages = budget_pages(5, {
        3: {"verdict": residual_fenced(), **fix(3, "Footnote 2 under Table 1 is missing.")},
        7: {"verdict": residual_preamble(), **fix(7, "The second paragraph ends early.")},
        14: {"verdict": brace_for_bracket(), **fix(14, "The bond series table is missing its last row.")},
        15: {"verdict": residual_string_value(), **fix(15, "Staffing totals row is missing.")},
        16: {"verdict": residual_comma(), **fix(16, "Fare table has the senior and youth columns swapped.")},
    })
    t = extract_pages(run, "rta-budget-fy2024", pages)
    t = review(run, t + 40, [
        (reader_verdict([{"severity": "major", "pages": [16], "issue": "Fare table columns swapped.", "suggested_action": "Swap them back."},
                         {"severity": "minor", "pages": [18], "issue": "Glossary terms are not bold.", "suggested_action": "None needed; dt is enough."}]), 2,
         ("fail", TRUNCATION.format("openrouter", 118234))),
        (reader_verdict([{"severity": "major", "pages": [16], "issue": "Fare table columns swapped.", "suggested_action": "Swap them back."},
                         {"severity": "minor", "pages": [18], "issue": "Glossary terms are not bold.", "suggested_action": "None needed."}]), 2, None),
    ])
    finish(run, t, True, iterations=1, unresolved=2)
    html = {n: page_html_of(p.get("correction", p["page"])) for n, p in pages.items()}
    write_run(campaign, BUDGET, run, doc_meta(BUDGET, "https://transit.example.gov/budget/fy2024-adopted.pdf", 18),
              "s-71e0b3c2", "ready_for_review", html, 1, ledger, "FY2024 Adopted Budget")

    # The annual report: restarts, a bare-HTML page, a Reader verdict quoting {"html":".
    run = Run(datetime.datetime(2025, 5, 19, 9, 41, 37, 0), "anthropic/claude-sonnet-4.5", "openrouter")
    run.at(0, {"type": "run_start", "pages": 5, "mode": "full"})
    run.at(40, {"type": "phase", "phase": "extraction"})
    rng = random.Random(55)
    pages = {
        1: {"page": envelope("<h1>Annual Report 2023</h1><p>Regional Transit Authority</p>", "Page 1. Cover."), "verdict": verdict(True), "ok": True},
        2: {"page": restart_plain(), "verdict": verdict(True), "ok": True},
        3: {"page": restart_with_brace(), "verdict": decoy_verdict(3), "ok": True},
        4: {"page": envelope("<h2>Ridership Trend</h2><figure><img src=\"chart-p4.png\" alt=\"\"><figcaption>Monthly boardings, 2019-2023</figcaption></figure>" + paragraphs(rng, 1),
                             "Page 4. Chart with caption.", {"name": "chart", "reason": "line chart with data labels"}), "verdict": verdict(True), "ok": True},
        5: {"page": bare_html_page(), "out_tokens": 3189, "verdict": verdict(True, notes="The page ends mid-sentence, as the output does."), "ok": True},
    }
    t = extract_pages(run, "annual-report-2023", pages, lanes=2)
    body = "".join(page_html_of(p["page"]) for _, p in sorted(pages.items()) if p["page"].startswith("{"))
    t = review(run, t + 40, [(reader_quoting_html(), 5, model_json({"html": body})),
                             (reader_verdict([]), 0, None)])
    finish(run, t, True, iterations=1)
    html = {n: page_html_of(p["page"]) for n, p in pages.items()}
    write_run(campaign, ANNUAL, run, doc_meta(ANNUAL, "https://transit.example.gov/about/annual-report-2023.pdf", 5),
              "s-c08e6f14", "ready_for_review", html, 1, ledger, "Annual Report 2023")

    # The capital program: readings shaped like the seed's failures (the risk flags).
    run = Run(datetime.datetime(2025, 5, 19, 10, 4, 52, 0), "anthropic/claude-sonnet-4.5", "openrouter")
    run.at(0, {"type": "run_start", "pages": 4, "mode": "full"})
    run.at(40, {"type": "phase", "phase": "extraction"})
    rng = random.Random(66)
    p3_html = "<h2>Funding Sources</h2>" + paragraphs(rng, 2) + table(
        "Table 2. Capital funding by source, FY2025-2029 ($ millions)",
        [simple_header(["Source", "FY2025", "FY2026", "FY2027"])],
        [[name, money(rng, 5, 90), money(rng, 5, 90), money(rng, 5, 90)]
         for name in ("Federal formula funds", "State transit capital", "Local sales tax", "Bond proceeds")])
    empty = lambda n: {"ok": False, "problems": [{"issue": f"Page {n} came back empty: its html is not the page.", "severity": "major"}],
                       "verdict": verdict(False, [{"issue": f"Page {n} came back empty: its html is not the page.", "severity": "major"}],
                                          "Nothing on the page was transcribed.")}
    pages = {
        1: {"page": envelope("<h1>Capital Improvement Program FY2025-2029</h1><p>Regional Transit Authority</p>", "Page 1. Cover."),
            "verdict": verdict(True), "ok": True},
        2: {"page": template_only(), **empty(2),
            "correction": envelope("<h2>Program Summary</h2>" + paragraphs(rng, 3), "Page 2. Program summary.")},
        3: {"page": contract_after_answer(p3_html, "Page 3. Funding sources and Table 2."), **empty(3),
            "correction": envelope(p3_html, "Page 3. Funding sources and Table 2, resent.")},
        4: {"page": stopped_in_html(rng), **empty(4), "out_tokens": 412},
    }
    t = extract_pages(run, "capital-program-fy2025", pages, lanes=2)
    t = review(run, t + 40, [(reader_verdict([{"severity": "major", "pages": [4], "issue": "The project list stops after three rows.",
                                               "suggested_action": "Re-extract page 4."}]), 1, None)])
    finish(run, t, True, iterations=0, unresolved=1)
    html = {n: page_html_of(p.get("correction", p["page"])) for n, p in pages.items()}
    write_run(campaign, CAPITAL, run, doc_meta(CAPITAL, "https://transit.example.gov/capital/cip-fy2025-2029.pdf", 4),
              "s-5a9d2e71", "ready_for_review", html, 0, ledger, "Capital Improvement Program FY2025-2029")

    # The atlas: refused at submission for its page count. No session, no log.
    meta = doc_meta(ATLAS, "https://planning.example.gov/atlas/regional-atlas.pdf", 212)
    meta.update(outcome="http_400", http_status=400, round_trip_ms=1840, submitted_at="2025-05-19T09:52:10.004Z",
                error="The document has 212 pages; this deployment accepts at most 150 (max_pages).")
    write(campaign / ATLAS / "meta.json", json.dumps(meta, indent=2))
    ledger.append({"id": ATLAS, "session_id": None, "outcome": "http_400", "round_trip_ms": 1840, "at": "2025-05-19T09:52:11.844Z"})
    write(campaign / "ledger.jsonl", "".join(js(e) + "\n" for e in ledger))


# --- the other formats ---------------------------------------------------------

def anthropic_message(id_, text, stop="end_turn", out_tokens=None, model="claude-sonnet-4-5-20250929", extra_blocks=()):
    return {"id": id_, "type": "message", "role": "assistant", "model": model,
            "content": list(extra_blocks) + [{"type": "text", "text": text}], "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 3120, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 1840,
                      "output_tokens": out_tokens or max(10, len(text) * 10 // 36)}}


def formats(out):
    rng = random.Random(77)
    page = envelope("<h2>Fare Structure</h2>" + paragraphs(rng, 2), "Page 16. Fare structure.")
    msgs = [
        anthropic_message("msg_01PageSixteen", page),
        anthropic_message("msg_02Verdict", decoy_verdict(16),
                          extra_blocks=[{"type": "thinking", "thinking": "Compare the fare table first.", "signature": "sig"}]),
        anthropic_message("msg_03Handler", event_handler_page()),
    ]
    write(out / "anthropic" / "messages.jsonl", "".join(js(m) + "\n" for m in msgs))
    write(out / "anthropic" / "page-009.json", json.dumps(anthropic_message("msg_04Ridership", four_fenced()), indent=2, ensure_ascii=False))
    edits = [
        {"find": "Operating expenses by department</caption>", "replace": "Operating expenses by department (in dollars)</caption>"},
        {"find": "<p>Glossary</p>", "replace": "<h2>Glossary of Budget Terms</h2>"},
        {"find": "<td>4,182,300</td>", "replace": "<td>4,812,300</td>"},
    ]
    cut = '{"edits": [' + ", ".join(model_json(e) for e in edits) + ', {"find": "<p>Table 3 continues on the next pa'
    write(out / "anthropic" / "copy-editor-max-tokens.json",
          json.dumps(anthropic_message("msg_05EditsCut", cut, stop="max_tokens", out_tokens=8192), indent=2, ensure_ascii=False))
    bedrock = anthropic_message("msg_bdrk_01Blockquote", blockquote_page(), model="claude-sonnet-4-20250514")
    bedrock["amazon-bedrock-invocationMetrics"] = {"inputTokenCount": 3120, "outputTokenCount": 212, "invocationLatency": 8113, "firstByteLatency": 1902}
    write(out / "bedrock" / "invoke-body.json", json.dumps(bedrock, indent=2, ensure_ascii=False))
    converse = {"output": {"message": {"role": "assistant", "content": [{"text": backslash_title()}]}}, "stopReason": "end_turn",
                "usage": {"inputTokens": 2980, "outputTokens": 96, "totalTokens": 3076}, "metrics": {"latencyMs": 4410}}
    write(out / "bedrock" / "converse.json", json.dumps(converse, indent=2, ensure_ascii=False))

    def chat(id_, text, finish="stop", tokens=None):
        return {"id": id_, "object": "chat.completion", "created": 1747648000, "model": "gpt-4.1-2025-04-14",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text, "refusal": None}, "logprobs": None, "finish_reason": finish}],
                "usage": {"prompt_tokens": 3300, "completion_tokens": tokens or max(10, len(text) // 4), "total_tokens": 3300 + (tokens or len(text) // 4),
                          "prompt_tokens_details": {"cached_tokens": 2048}}}
    write(out / "openai" / "chat-completion.json", json.dumps(chat("chatcmpl-BlockquotePage2", blockquote_page()), indent=2, ensure_ascii=False))
    long_page = envelope("<h2>Operating Expenses by Department</h2>" + table("Table 3. Operating expenses by department", T3_HEADER, table3_rows(random.Random(3), 38)), "Page 17.")
    write(out / "openai" / "chat-length.json", json.dumps(chat("chatcmpl-CutAtLength", long_page[:4000], "length", 1024), indent=2, ensure_ascii=False))
    batch = []
    jobs = [("verify/measures-p3", verdict_339()), ("page/annual-p2", restart_plain()), ("verify/budget-p14", brace_for_bracket())]
    for i, (custom_id, text) in enumerate(jobs, 1):
        fin = "stop"
        batch.append({"id": f"batch_req_{i:03d}", "custom_id": custom_id,
                      "response": {"status_code": 200, "request_id": f"req_{i:03d}", "body": chat(f"chatcmpl-batch{i}", text, fin)}, "error": None})
    batch.append({"id": "batch_req_004", "custom_id": "page/annual-p5", "response": None,
                  "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}})
    write(out / "openai" / "batch-output.jsonl", "".join(js(b) + "\n" for b in batch))

    def responses(id_, text, status="completed", reason=None):
        return {"id": id_, "object": "response", "created_at": 1747648100, "status": status,
                "incomplete_details": {"reason": reason} if reason else None, "model": "gpt-5-2025-08-07",
                "output": [{"id": "rs_1", "type": "reasoning", "summary": []},
                           {"id": "msg_1", "type": "message", "status": status, "role": "assistant",
                            "content": [{"type": "output_text", "text": text, "annotations": []}]}],
                "usage": {"input_tokens": 3400, "input_tokens_details": {"cached_tokens": 0},
                          "output_tokens": max(10, len(text) // 4), "output_tokens_details": {"reasoning_tokens": 512}}}
    write(out / "openai" / "responses.json", json.dumps(responses("resp_ReaderQuote", reader_quoting_html()), indent=2, ensure_ascii=False))
    write(out / "openai" / "responses-incomplete.json",
          json.dumps(responses("resp_Incomplete", long_page[:2500], "incomplete", "max_output_tokens"), indent=2, ensure_ascii=False))

    write(out / "replies" / "page-017-correction.txt", long_correction())
    write(out / "replies" / "verdict-339.md", verdict_339() + "\n")
    write(out / "replies" / "page-005-bare.html", bare_html_page())
    write(out / "replies" / "restart-with-brace.txt", restart_with_brace())
    write(out / "replies" / "restart-unreadable.txt", restart_unreadable())

    custom = [
        {"case": "annual-report-2023/p2", "completion": {"text": restart_plain()}, "meta": {"agent": "page", "page": 2, "model": "local-qwen"}},
        {"case": "annual-report-2023/p3", "completion": {"text": restart_with_brace()}, "meta": {"agent": "page", "page": 3, "model": "local-qwen"}},
    ]
    write(out / "custom" / "eval-export.jsonl", "".join(js(c) + "\n" for c in custom))


# --- formats added later: Gemini, streams, local servers, evals, traces -------------

def pretty(obj):
    """How `curl … | jq .` saves a response: two-space indent, arrays one item a line."""
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def sse(events):
    """A server-sent-event capture: `event:` where the provider names its events."""
    out = ""
    for name, data in events:
        if name:
            out += f"event: {name}\n"
        out += f"data: {js(data)}\n\n"
    return out


def pieces(text, n):
    """`text` in `n` nearly equal pieces, as a stream delivers it."""
    step = max(1, len(text) // n)
    return [text[i:i + step] for i in range(0, len(text), step)]


def zip_by_hand(path, members, method):
    """A zip whose members are compressed by `method` ('deflate' or 'zstd'), written by hand:
    Python's zipfile writes no zstd (method 93) before 3.14, and Inspect writes zstd by default."""
    out, central = bytearray(), bytearray()
    for name, data in members:
        data = data.encode()
        if method == "zstd":
            packed = subprocess.run(["zstd", "-q", "-c", "-19"], input=data, capture_output=True, check=True).stdout
            code = 93
        else:
            c = zlib.compressobj(5, zlib.DEFLATED, -15)
            packed = c.compress(data) + c.flush()
            code = zipfile.ZIP_DEFLATED
        fields = struct.pack("<HHHHHIIIHH", 63, 0, code, 0, 0x5A21, zlib.crc32(data), len(packed), len(data), len(name), 0)
        offset = len(out)
        out += b"PK\x03\x04" + fields + name.encode() + packed
        central += b"PK\x01\x02" + struct.pack("<H", 63) + fields + struct.pack("<HHHII", 0, 0, 0, 0, offset) + name.encode()
    at = len(out)
    out += central + b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, len(members), len(members), len(central), at, 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(out))


def gemini_response(text, finish="STOP", thought=None, rid="r", model="gemini-2.5-flash", out_tokens=None, **extra):
    parts = ([{"text": thought, "thought": True}] if thought else []) + [{"text": text}]
    r = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}],
         "usageMetadata": {"promptTokenCount": 3180, "candidatesTokenCount": out_tokens or max(10, len(text) // 4),
                           "thoughtsTokenCount": 412 if thought else 0,
                           "totalTokenCount": 3180 + (out_tokens or max(10, len(text) // 4))},
         "modelVersion": model, "responseId": rid}
    r.update(extra)
    return r


def more_formats(out):
    rng = random.Random(88)
    long_page = envelope("<h2>Operating Expenses by Department</h2>" + table("Table 3. Operating expenses by department", T3_HEADER, table3_rows(random.Random(3), 38)), "Page 17.")

    # Gemini and Vertex AI.
    g = out / "gemini"
    write(g / "generate-content.json", pretty(gemini_response(blockquote_page(), thought="**Reading the statute.** The quotation marks belong to the text.", rid="gB9aaLmWF6bQ")))
    write(g / "max-tokens.json", pretty(gemini_response(long_page[:3000], "MAX_TOKENS", thought="**Transcribing the table.**", rid="gC2aaPqA1xR", out_tokens=1024)))
    write(g / "blocked-prompt.json", pretty({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
                                             "usageMetadata": {"promptTokenCount": 3180, "totalTokenCount": 3180},
                                             "modelVersion": "gemini-2.5-flash", "responseId": "gD7aaZk0Yb"}))
    batch = [
        {"key": "gemini-verify-measures-p3", "response": gemini_response(verdict_339(), rid="b1")},
        {"key": "gemini-page-annual-p2", "response": gemini_response(restart_plain(), rid="b2")},
        {"key": "gemini-page-budget-p17", "response": gemini_response(long_page[:1800], "MAX_TOKENS", rid="b3", out_tokens=512)},
        {"key": "gemini-page-annual-p5", "error": {"code": 400, "message": "Request payload size exceeds the limit: 20971520 bytes."}},
    ]
    write(g / "batch-output.jsonl", "".join(js(b) + "\n" for b in batch))
    req = lambda n: {"contents": [{"role": "user", "parts": [{"text": f"Transcribe page {n}."}]}], "generationConfig": {"maxOutputTokens": 8192}}
    vertex = [
        {"status": "", "processed_time": "2025-08-14T16:27:27.775+00:00", "request": req(14),
         "response": gemini_response(brace_for_bracket(), rid="v1", model="gemini-2.5-pro", createTime="2025-08-14T16:27:19.201Z")},
        {"status": "Bad Request: {\"error\": {\"code\": 400, \"message\": \"Unable to submit request because it has an empty text parameter.\", \"status\": \"INVALID_ARGUMENT\"}}",
         "processed_time": "2025-08-14T16:27:28.004+00:00", "request": req(15)},
    ]
    write(g / "vertex-batch.jsonl", "".join(js(v) + "\n" for v in vertex))

    # Streams saved to files.
    st = out / "streams"
    text = event_handler_page()
    chunk = lambda delta, finish=None: (None, {"id": "chatcmpl-StreamHandler", "object": "chat.completion.chunk", "created": 1747648000,
                                                "model": "gpt-4.1-2025-04-14", "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]})
    events = [chunk({"role": "assistant", "content": "", "refusal": None})] + [chunk({"content": p}) for p in pieces(text, 6)] + [chunk({}, "stop")]
    events.append((None, {"id": "chatcmpl-StreamHandler", "object": "chat.completion.chunk", "created": 1747648000, "model": "gpt-4.1-2025-04-14",
                          "choices": [], "usage": {"prompt_tokens": 3300, "completion_tokens": len(text) // 4, "total_tokens": 3300 + len(text) // 4}}))
    write(st / "openai-chat.sse", sse(events) + "data: [DONE]\n\n")
    text = reader_quoting_html()
    rid = "resp_StreamReader"
    final = {"id": rid, "object": "response", "created_at": 1747648100, "status": "completed", "model": "gpt-5-2025-08-07",
             "output": [{"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Checking the headings."}]},
                        {"id": "msg_1", "type": "message", "status": "completed", "role": "assistant",
                         "content": [{"type": "output_text", "text": text, "annotations": []}]}],
             "usage": {"input_tokens": 3400, "output_tokens": len(text) // 4, "output_tokens_details": {"reasoning_tokens": 320}}}
    ev = [("response.created", {"type": "response.created", "sequence_number": 0, "response": {**final, "status": "in_progress", "output": [], "usage": None}}),
          ("response.reasoning_summary_text.delta", {"type": "response.reasoning_summary_text.delta", "sequence_number": 1, "item_id": "rs_1",
                                                      "output_index": 0, "summary_index": 0, "delta": "Checking the headings."})]
    for i, p in enumerate(pieces(text, 5)):
        ev.append(("response.output_text.delta", {"type": "response.output_text.delta", "sequence_number": 2 + i, "item_id": "msg_1",
                                                  "output_index": 1, "content_index": 0, "delta": p, "logprobs": []}))
    ev.append(("response.completed", {"type": "response.completed", "sequence_number": 9, "response": final}))
    write(st / "openai-responses.sse", sse(ev))

    def anthropic_stream(mid, text, stop, n=6):
        ev = [("message_start", {"type": "message_start", "message": {"id": mid, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                                                                      "content": [], "stop_reason": None, "stop_sequence": None,
                                                                      "usage": {"input_tokens": 3120, "cache_read_input_tokens": 1840, "output_tokens": 1}}}),
              ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
              ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "The brace in the restart rebalances the string."}}),
              ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCkYIBxgC"}}),
              ("content_block_stop", {"type": "content_block_stop", "index": 0}),
              ("content_block_start", {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
              ("ping", {"type": "ping"})]
        ev += [("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": p}}) for p in pieces(text, n)]
        if stop:
            ev += [("content_block_stop", {"type": "content_block_stop", "index": 1}),
                   ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": max(10, len(text) // 4)}}),
                   ("message_stop", {"type": "message_stop"})]
        return sse(ev)
    write(st / "anthropic-messages.sse", anthropic_stream("msg_01StreamBrace", restart_with_brace(), "end_turn"))
    cut = anthropic_stream("msg_01StreamCut", long_page[:2400], None)
    write(st / "anthropic-cut-short.sse", cut)
    text = backslash_title()
    gev = [(None, {"candidates": [{"content": {"role": "model", "parts": [{"text": "**Reading the title page.**", "thought": True}]}, "index": 0}],
                   "usageMetadata": {"promptTokenCount": 2980, "totalTokenCount": 2980}, "modelVersion": "gemini-2.5-flash", "responseId": "gS1aaQ"})]
    for i, p in enumerate(pieces(text, 4)):
        gev.append((None, {"candidates": [{"content": {"role": "model", "parts": [{"text": p}]}, "index": 0}],
                           "usageMetadata": {"promptTokenCount": 2980, "candidatesTokenCount": 8 * (i + 1), "totalTokenCount": 2980 + 8 * (i + 1)},
                           "modelVersion": "gemini-2.5-flash", "responseId": "gS1aaQ"}))
    gev.append((None, {"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP", "index": 0}],
                       "usageMetadata": {"promptTokenCount": 2980, "candidatesTokenCount": 96, "thoughtsTokenCount": 210, "totalTokenCount": 3286},
                       "modelVersion": "gemini-2.5-flash", "responseId": "gS1aaQ"}))
    write(st / "gemini.sse", sse(gev).replace("\n", "\r\n"))
    text = verdict(True)
    lines = [{"model": "qwen3:8b", "created_at": "2026-05-01T10:00:00.%06dZ" % i, "message": {"role": "assistant", "content": "", "thinking": t}, "done": False}
             for i, t in enumerate(["Compare the table ", "with the image."])]
    lines += [{"model": "qwen3:8b", "created_at": "2026-05-01T10:00:01.%06dZ" % i, "message": {"role": "assistant", "content": p}, "done": False}
              for i, p in enumerate(pieces(text, 5))]
    lines.append({"model": "qwen3:8b", "created_at": "2026-05-01T10:00:02Z", "message": {"role": "assistant", "content": ""}, "done": True,
                  "done_reason": "stop", "total_duration": 2212000000, "load_duration": 41000000, "prompt_eval_count": 2900,
                  "prompt_eval_duration": 610000000, "eval_count": 96, "eval_duration": 1500000000})
    write(st / "ollama-chat.ndjson", "".join(js(l) + "\n" for l in lines))

    # Local and compatible servers, and Cohere.
    lo = out / "local"
    write(lo / "ollama-chat.json", pretty({"model": "qwen3:8b", "created_at": "2026-05-01T10:00:02Z",
                                           "message": {"role": "assistant", "content": decoy_verdict(5), "thinking": "The contract is quoted first; the verdict follows."},
                                           "done": True, "done_reason": "stop", "total_duration": 5123000000, "prompt_eval_count": 2900, "eval_count": 240}))
    write(lo / "ollama-generate-length.json", pretty({"model": "llama3.2:3b", "created_at": "2026-05-01T10:01:00Z", "response": long_page[:2000],
                                                      "done": True, "done_reason": "length", "context": [128006, 9125, 128007],
                                                      "total_duration": 9100000000, "prompt_eval_count": 2900, "eval_count": 512}))
    write(lo / "vllm-chat.json", pretty({"id": "chatcmpl-vllm-7f3c", "object": "chat.completion", "created": 1747648000, "model": "Qwen/Qwen3-32B",
                                         "choices": [{"index": 0, "message": {"role": "assistant", "content": restart_with_brace(), "reasoning": "The first attempt broke off mid-string.",
                                                                              "reasoning_content": "The first attempt broke off mid-string.", "tool_calls": []},
                                                      "logprobs": None, "finish_reason": "stop", "stop_reason": None}],
                                         "usage": {"prompt_tokens": 3010, "completion_tokens": 420, "total_tokens": 3430}}))
    write(lo / "llamacpp-chat.json", pretty({"id": "chatcmpl-lcpp", "object": "chat.completion", "created": 1747648000, "model": "qwen2.5-7b-instruct-q4_k_m.gguf",
                                             "choices": [{"index": 0, "message": {"role": "assistant", "content": long_page[:1500]}, "finish_reason": "length"}],
                                             "usage": {"prompt_tokens": 2990, "completion_tokens": 384, "total_tokens": 3374},
                                             "timings": {"prompt_n": 2990, "predicted_n": 384, "predicted_per_second": 31.2}}))
    co = out / "cohere"
    write(co / "chat-v2.json", pretty({"id": "c14c80c3-18eb-4519-9460-6c92edd8cfb4", "finish_reason": "COMPLETE",
                                       "message": {"role": "assistant", "content": [{"type": "thinking", "thinking": "Check each figure against the image."},
                                                                                    {"type": "text", "text": residual_string_value()}]},
                                       "usage": {"billed_units": {"input_tokens": 2900, "output_tokens": 210}, "tokens": {"input_tokens": 3050, "output_tokens": 210}}}))
    write(co / "chat-v2-tool-call.json", pretty({"id": "0a2b7c1e-7e44-4a5e-9d1f-1c0b4f7a9e21", "finish_reason": "TOOL_CALL",
                                                 "message": {"role": "assistant", "tool_plan": "I will look up the fare table first.",
                                                             "tool_calls": [{"id": "lookup_fares_1", "type": "function",
                                                                             "function": {"name": "lookup_fares", "arguments": "{\"year\": 2024}"}}]},
                                                 "usage": {"billed_units": {"input_tokens": 2900, "output_tokens": 31}, "tokens": {"input_tokens": 3050, "output_tokens": 31}}}))

    # Responses that hold no text: calls that left no reply.
    nt = out / "no-text"
    write(nt / "anthropic-tool-use.json", pretty({"id": "msg_01ToolOnly", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                                                  "content": [{"type": "tool_use", "id": "toolu_01A", "name": "fetch_page_image", "input": {"page": 17}}],
                                                  "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 3120, "output_tokens": 48}}))
    write(nt / "openai-tool-calls.json", pretty({"id": "chatcmpl-ToolOnly", "object": "chat.completion", "created": 1747648000, "model": "gpt-4.1-2025-04-14",
                                                 "choices": [{"index": 0, "message": {"role": "assistant", "content": None, "refusal": None, "annotations": [],
                                                                                      "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "fetch_page_image", "arguments": "{\"page\": 17}"}}]},
                                                              "logprobs": None, "finish_reason": "tool_calls"}],
                                                 "usage": {"prompt_tokens": 3300, "completion_tokens": 21, "total_tokens": 3321}}))
    write(nt / "openai-refusal.json", pretty({"id": "chatcmpl-Refusal", "object": "chat.completion", "created": 1747648000, "model": "gpt-4.1-2025-04-14",
                                              "choices": [{"index": 0, "message": {"role": "assistant", "content": None, "refusal": "I can't help transcribe this document."},
                                                           "logprobs": None, "finish_reason": "stop"}],
                                              "usage": {"prompt_tokens": 3300, "completion_tokens": 9, "total_tokens": 3309}}))

    # Inspect AI eval logs.
    ins = out / "inspect"
    eval_ = {"eval_id": "kVq3xNwz8fGm2pLh", "run_id": "R7tYc2mPq9", "created": "2026-05-01T10:00:00+00:00", "task": "page_transcription",
             "task_id": "T4n8sQ", "task_version": 0, "dataset": {"name": "budget-pages", "samples": 3}, "model": "anthropic/claude-sonnet-4-5", "config": {}}
    header = {"version": 2, "status": "success", "eval": eval_, "plan": {"name": "plan", "steps": [{"solver": "generate", "params": {}}]},
              "results": {"total_samples": 3, "completed_samples": 3, "scores": [{"name": "match", "metrics": {"accuracy": {"name": "accuracy", "value": 0.5}, "stderr": {"name": "stderr", "value": 0.1}}}]},
              "stats": {"started_at": "2026-05-01T10:00:00+00:00", "completed_at": "2026-05-01T10:01:10+00:00"}}

    def isample(sid, epoch, text, stop, completion=True):
        content = [{"type": "reasoning", "reasoning": "Read the table row by row.", "signature": "EqQB", "redacted": False}, {"type": "text", "text": text}]
        return {"id": sid, "epoch": epoch, "input": f"Transcribe page {sid}.", "target": "", "messages": [],
                "output": {"model": "claude-sonnet-4-5-20250929", "choices": [{"message": {"role": "assistant", "content": content, "source": "generate"}, "stop_reason": stop}],
                           "completion": text if completion else "", "usage": {"input_tokens": 3120, "output_tokens": max(10, len(text) // 4), "total_tokens": 3120 + len(text) // 4}, "time": 21.4},
                "scores": {"match": {"value": "C" if stop == "stop" else "I"}}, "metadata": {}, "total_time": 22.0,
                "started_at": "2026-05-01T10:00:00+00:00", "completed_at": "2026-05-01T10:00:22+00:00", "error": None}
    samples = [isample(3, 1, decoy_verdict(3), "stop"), isample(9, 1, four_fenced(), "stop", completion=False), isample(17, 1, long_page[:3000], "max_tokens")]
    members = [("_journal/start.json", js({"version": 2, "eval": eval_, "plan": header["plan"]}))]
    members += [(f"samples/{s['id']}_epoch_{s['epoch']}.json", js(s)) for s in samples]
    members += [("summaries.json", js([{"id": s["id"], "epoch": s["epoch"]} for s in samples])), ("header.json", js(header))]
    zip_by_hand(ins / "page-transcription.eval", members, "zstd")
    zip_by_hand(ins / "page-transcription-deflate.eval", members, "deflate")
    log = dict(header)
    log["samples"] = samples
    # Python's json.dumps writes a NaN score as a bare word.
    write(ins / "page-transcription.json", pretty(log).replace('"value": 0.1', '"value": NaN'))

    # OpenTelemetry GenAI spans, as the collector's file exporter writes them.
    attr = lambda k, v: {"key": k, "value": {"intValue": str(v)} if isinstance(v, int) else {"stringValue": v}}
    def span(name, sid, attrs, start=1747648000000000000, ms=8100):
        return {"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": sid, "parentSpanId": "00f067aa0ba902b7", "name": name, "kind": 3,
                "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + ms * 1000000), "attributes": attrs, "status": {}}
    def request(spans):
        return {"resourceSpans": [{"resource": {"attributes": [attr("service.name", "doc-pipeline")]},
                                   "scopeSpans": [{"scope": {"name": "opentelemetry.instrumentation.openai_v2", "version": "2.1b0"}, "spans": spans}]}]}
    text = verdict_339()
    out_msgs = [{"role": "assistant", "parts": [{"type": "reasoning", "content": "The notes quote the contract."}, {"type": "text", "content": text}], "finish_reason": "stop"}]
    line1 = request([
        span("POST /documents", "00f067aa0ba902b7", [attr("http.request.method", "POST"), attr("http.route", "/documents"), attr("http.response.status_code", 202)], ms=40000),
        span("chat gpt-4.1", "a1b2c3d4e5f60718", [attr("gen_ai.operation.name", "chat"), attr("gen_ai.provider.name", "openai"), attr("gen_ai.request.model", "gpt-4.1"),
                                                  attr("gen_ai.response.model", "gpt-4.1-2025-04-14"), attr("gen_ai.response.id", "chatcmpl-Otel339"),
                                                  {"key": "gen_ai.response.finish_reasons", "value": {"arrayValue": {"values": [{"stringValue": "stop"}]}}},
                                                  attr("gen_ai.usage.input_tokens", 3300), attr("gen_ai.usage.output_tokens", 180),
                                                  attr("gen_ai.output.messages", js(out_msgs))]),
        span("SELECT pages", "b2c3d4e5f6071829", [attr("db.system.name", "postgresql"), attr("db.operation.name", "SELECT")], ms=12),
    ])
    line2 = request([
        span("openai.chat", "c3d4e5f607182930", [attr("llm.request.type", "chat"), attr("gen_ai.system", "OpenAI"), attr("gen_ai.request.model", "gpt-4.1-mini"),
                                                 attr("gen_ai.response.model", "gpt-4.1-mini-2025-04-14"), attr("gen_ai.completion.0.role", "assistant"),
                                                 attr("gen_ai.completion.0.content", long_page[:1200]), attr("gen_ai.completion.0.finish_reason", "length"),
                                                 attr("gen_ai.usage.prompt_tokens", 3010), attr("gen_ai.usage.completion_tokens", 300)], start=1747648060000000000),
        span("embeddings text-embedding-3-small", "d4e5f60718293041", [attr("gen_ai.operation.name", "embeddings"), attr("gen_ai.request.model", "text-embedding-3-small"),
                                                                        attr("gen_ai.usage.input_tokens", 812)], start=1747648070000000000, ms=90),
    ])
    write(out / "otel" / "traces.jsonl", js(line1) + "\n" + js(line2) + "\n")

    # promptfoo.
    def pf(idx, text, finish=None, error=None):
        resp = {"output": text, "tokenUsage": {"total": 3400, "prompt": 3300, "completion": 100, "cached": 0}, "cached": False}
        if finish:
            resp["finishReason"] = finish
        if error:
            resp = {"error": error}
        r = {"id": f"0d8c-{idx}", "promptIdx": 0, "testIdx": idx, "provider": {"id": "openai:gpt-4.1-mini", "label": ""},
             "prompt": {"raw": "Transcribe page {{page}} as {html, log}.", "label": "page-prompt"}, "vars": {"page": idx + 1},
             "response": resp, "success": error is None, "score": 1 if error is None else 0, "latencyMs": 4120 + idx, "namedScores": {}, "cost": 0.0021}
        if error:
            r["error"] = error
        return r
    doc = {"evalId": "eval-7Hq-2026-05-01T10:00:00", "results": {"version": 3, "timestamp": "2026-05-01T10:00:00.000Z",
           "prompts": [{"raw": "Transcribe page {{page}} as {html, log}.", "label": "page-prompt", "provider": "openai:gpt-4.1-mini"}],
           "results": [pf(0, blockquote_page()), pf(1, long_page[:2000], "length"), pf(2, None, error="API error: 429 Too Many Requests")],
           "stats": {"successes": 2, "failures": 1, "errors": 1}}, "config": {"description": "page transcription"}, "shareableUrl": None}
    write(out / "promptfoo" / "out.json", pretty(doc))

    # bracewalk's own records, what `extract --jsonl` reads.
    recs = [{"id": "measures-p3", "text": verdict_339()}, {"id": "annual-p3", "text": restart_with_brace()},
            {"id": "budget-p17-cut", "text": '{"edits": [{"find": "a", "replace": "b"}, {"find": "<p>Table 3 contin', "fields": ["edits"]}]
    write(out / "records" / "corpus.jsonl", "".join(js(r) + "\n" for r in recs))


def bad(out):
    rng = random.Random(99)
    good = envelope("<h2>Safety</h2>" + paragraphs(rng, 1), "Page 6. Safety.")
    write(out / "good-reply.txt", good)
    (out / "invalid-utf8.txt").write_bytes(
        b'{"html": "<h2>Service Area</h2><p>Caf\xe9 district routes run every 15 minutes.</p>", '
        b'"log": "Page 4. Service area.", "suggested_agent": null}')
    (out / "page-017.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x06\x40\x00\x00\x08\x34\x08\x02\x00\x00\x00" + bytes(range(256)))
    write(out / "empty.txt", "")
    write(out / "unknown-shape.json", json.dumps({"prompt": "Transcribe page 3.", "completion_text": good, "latency": 8.1}, indent=2))
    m = lambda i, text: js(anthropic_message(f"msg_bad_{i}", text))
    lines = [
        m(1, good),
        m(2, good)[:180],                                             # cut short: not JSON
        js({"prompt": "Transcribe page 5.", "completion_text": good}),  # a record of no known shape
        m(4, good),
    ]
    data = "".join(line + "\n" for line in lines).encode()
    bad_bytes = m(5, "<p>Fa\u00e7ade repairs</p>").encode().replace("\u00e7".encode(), b"\xe7")
    data += bad_bytes + b"\n" + m(6, good).encode() + b"\n" + m(7, good).encode()[:90]  # last line still being written
    (out / "broken-lines.jsonl").write_bytes(data)
    for name, target in [("loop", "loop"), ("up", "."), ("dangling.txt", "missing.txt")]:
        p = out / name
        if p.is_symlink() or p.exists():
            p.unlink()
        os.symlink(target, p)


def main():
    for sub in ("round-4", "round-5", "formats", "bad"):
        shutil.rmtree(ROOT / sub, ignore_errors=True)
    round4(ROOT / "round-4")
    round5(ROOT / "round-5")
    formats(ROOT / "formats")
    more_formats(ROOT / "formats")
    bad(ROOT / "bad")


if __name__ == "__main__":
    main()
