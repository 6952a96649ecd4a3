"""General-chat prompts: long conversations about documents shipped by installed packages.

The story of every long prompt: a non-specialist (16 different people, from a food-bank coordinator to a
novelist) goes through the documents of the open-source projects their organisation relies on with an assistant.
They paste the projects' descriptions (the README in the distribution's METADATA, or documentation files) part by
part and the assistant answers each part with a plain-language digest drawn from it; then they paste part of the
license texts shipped in the same environment (LEGAL, cut into one part per conversation), the assistant picks out
its key sentences, and the person closes with a draft note for their board (or editor, class, family...) and an
open question. The README material is what the fill level cuts; the license part, its digest, the draft and the
question always close the prompt. Short prompts are one person, one short license file and one open question.

Offline prose that is not about programming is scarce in a Python environment: READMEs and even licenses are full
of technical words. The opening (a long general-assistant system prompt, the person's introduction) and the close
(the digest of plain sentences and the person's own draft, at least TAIL_PROSE characters) are ordinary prose, which
is what an open question to a chat model looks like and what the engine twin's domain detector reads.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from console.authoring.gen_fit import LONG_FIT, SHORT_FIT, Messages, fit, pick
from console.authoring.material_source import Source, dist_info, read, readme

# the name the committed sets' provenance records (this module's path when they were built)
FRAMING = "console.core.workload.material_chat"
SEED_BASE = 7100
TAIL_PROSE = 8200
"""Characters at the end of a long conversation made of the assistant's last digest and the person's draft."""
SHORT_SEED_BASE = 7300

# ------------------------------------------------------------------------------------------------ the people

PERSONAS: list[tuple[str, str]] = [
    ("Marta", "I coordinate a small charity that delivers groceries to older people in our town. A volunteer built "
              "the website we use to schedule the drivers, and he has just moved abroad. I am not a specialist, but "
              "now I am the one who has to understand what the site is built on, who looks after those pieces, and "
              "whether we may keep using and changing them."),
    ("Daniel", "I'm a freelance journalist working on a long feature about the people who maintain the free "
               "software that everyone depends on and almost nobody pays for. I want to understand what a few of "
               "these projects actually do, how they describe themselves, and what their licenses say, so that I "
               "don't misrepresent anything."),
    ("Amina", "I work in procurement for a regional hospital group. A supplier sent us a list of the open-source "
              "components inside the scheduling system they want to sell us, and I have been asked to write a "
              "short risk note for the board. I have a legal background, not an engineering one."),
    ("Tom", "My co-founder and I run a very small company, and an investor has started due diligence. Their lawyers "
            "sent a questionnaire about every third-party component in our product. My co-founder wrote the "
            "product; I handle everything else, so the questionnaire landed on my desk."),
    ("Ingrid", "I'm a librarian at a university. Students keep asking which free projects they can safely build "
               "their theses on, and I'd like to write a friendly guide. I want to read the projects' own "
               "descriptions and licenses carefully before I recommend anything."),
    ("Kwame", "I sit on the board of a community radio station. Our website and donation pages were rebuilt last "
              "year by a student, and the board has asked me to find out what we actually own, what we borrowed, "
              "and what obligations come with the borrowed parts."),
    ("Lucie", "I'm a paralegal at a small law firm, and a client has asked us to review the open-source pieces in "
              "an app they are about to launch. It is the first review of this kind our firm has done, so I'm "
              "trying to learn quickly and carefully."),
    ("Rafael", "I'm a product manager at a logistics company that was just acquired. The new parent company wants "
               "an inventory of everything our platform depends on, with a plain summary of each item and any "
               "license conditions, and I volunteered to draft it."),
    ("Siobhan", "I teach social studies at a secondary school, and next term I want to run a unit on how volunteer "
                "communities build and maintain shared resources. Free software projects seem like a great example, "
                "so I'm reading how a few of them present themselves and what rules they set for reuse."),
    ("Hiroshi", "I'm a program officer at a foundation that gives small grants to open-source projects. Before our "
                "next funding round I want to understand a handful of candidates better: what they are for, how they "
                "talk about their users and contributors, and what their licenses allow."),
    ("Beatriz", "I work for our city council's digital services team, on the policy side. The council is "
                "reviewing the open-source components in its public websites, and I need to brief councillors who "
                "have never read a license in their lives, without scaring them or glossing over real duties."),
    ("Owen", "I'm a novelist. My next book has a character who maintains a small but crucial piece of free software, "
             "and I want the details to ring true: how projects describe themselves, what changes between "
             "releases, and what their licenses actually say."),
    ("Giulia", "My family runs four bakeries, and our online ordering site was put together by a local agency that "
               "has since closed. I want to understand what the site is made of and whether we can hand it to a new "
               "agency without any trouble."),
    ("Nikolai", "I coordinate the digital collections of a regional museum. We are planning to publish our catalogue "
                "online using free software, and our director wants a plain account of the projects involved and of "
                "what we would be agreeing to."),
    ("Fatima", "I'm an HR manager writing our company's first policy on staff contributing to outside open-source "
               "projects. To write something sensible I want to read how real projects describe themselves and what "
               "their licenses ask of people who reuse or change the work."),
    ("Edwin", "I'm a retired surveyor and the treasurer of our hiking club. A member built the club's membership "
              "site as a favour, and before he steps back I'd like to understand, in plain words, what the site "
              "relies on and whether we have any obligations because of it."),
]

# (organisation, audience of the note the person drafts at the end), aligned with PERSONAS
CONTEXT: list[tuple[str, str]] = [
    ("our charity", "our trustees"), ("the projects I am writing about", "my editor"),
    ("our hospital group", "the hospital board"), ("our company", "the investor's lawyers"),
    ("our library", "the students"), ("the station", "the station's board"), ("our client", "our client"),
    ("our company", "the new parent company"), ("our school", "my class"), ("our foundation", "our grants committee"),
    ("the council", "the councillors"), ("the world of my novel", "my readers"), ("our bakeries", "my family"),
    ("the museum", "the museum director"), ("our company", "our staff"), ("our club", "the club committee"),
]

DRAFT = [
    "{Org} relies on several free projects, among them {projects}.",
    "None of these projects was written by us; they are maintained by volunteers and small teams around the world.",
    "We have never paid for any of them, and nobody has asked us to.",
    "Each project comes with a license, which is the set of rules for reusing it.",
    "The license texts we read include {licenses}.",
    "As far as I understand, we may use these projects freely, for any purpose, including commercial ones.",
    "We may also change them to suit our needs.",
    "The main condition is that the copyright notices and the license text travel with every copy we hand on.",
    "If we only run the site ourselves and never give copies to anyone, most of the conditions never come into play.",
    "The situation changes if we pass the site to another organisation or sell it as part of a product.",
    "Some of the texts also say that the authors give no warranty and accept no liability.",
    "In other words, if something breaks, nobody owes us a repair, and we cannot claim damages from the authors.",
    "One of the longer texts is a so-called copyleft license, which asks that changed versions be shared under the "
    "same terms when they are passed on.",
    "That license applies to a part that is bundled in unchanged form, and a special exception seems to cover our "
    "kind of use.",
    "Several texts forbid using the names of the authors to promote our own work without permission.",
    "The project descriptions were friendly and clear, and they put a lot of effort into explaining themselves.",
    "Some projects publish long lists of changes for every release, which suggests they are actively cared for.",
    "I was surprised by how much of our work rests on things other people give away.",
    "I do not think we are doing anything wrong today, but I would like us to keep better records.",
    "My proposal is to keep a simple list of the projects we use, with their licenses, and to review it once a year.",
    "We should also keep the license files together with any copy of the site we give to someone else.",
    "If we ever change one of these projects, we should write down what we changed and why.",
    "I would also like us to consider a small yearly donation to one or two of the projects we depend on most.",
    "Finally, I suggest we ask our adviser to read this note before we treat it as settled.",
    "I am not a lawyer, and this note is my own reading of the documents, not legal advice.",
    "I have tried to keep this short; the full texts are available if anyone wants to read them.",
    "The main risk I see is not legal trouble but the chance that a project we rely on stops being looked after.",
    "For that reason, it matters who maintains each project and how many people are involved.",
    "None of the texts asks us to pay anything or to register anywhere.",
    "We should be careful not to remove any notices, even small ones at the top of a file.",
    "Most of the licenses are short and written in ordinary words, once you get past the capital letters.",
    "The longer license is mainly about what happens when someone hands on a changed version to other people.",
    "Some of the projects depend on each other, so a single choice of ours can bring in several of them at once.",
    "I found it reassuring that the same few kinds of license come up again and again.",
    "It would be wise to check again whenever we add something new to the site or replace a part of it.",
    "Our volunteers should know that they can keep using these projects without asking anyone for permission.",
    "If a question comes up that this note does not answer, we should ask before acting rather than after.",
    "We might also thank the maintainers publicly, for example with a short mention on our website.",
    "The documents use a few words in special senses, such as work, copy and distribution, so care is needed.",
    "I have left out the history of each project, which is interesting but does not change our position.",
    "The licenses do not ask us to publish our own content, such as texts, photos or member lists.",
    "It is possible that a future version of a project will change its license, so the note should be dated.",
]
DRAFT_QUESTIONS = [
    "Do we need to show the license texts anywhere on our website, or is it enough to keep them with our files?",
    "If we hand the site to a new agency, do we have to give them anything besides the files themselves?",
    "Does any of this change if we start charging for something on the site?",
    "Who in our organisation should be responsible for keeping the list of projects up to date?",
    "How often should we review the list, and what should trigger an extra review?",
    "Is there anything we should stop doing straight away?",
    "Are there obligations that apply even if we never give copies to anyone?",
    "What should we do if we discover that a notice was removed in the past?",
    "Could a project change its license in a way that affects the version we already use?",
    "Is it acceptable to mention the projects by name when we thank them publicly?",
    "Do the warranty disclaimers mean we should have our own insurance for the site?",
    "What is the simplest way to keep the license files together with every copy of the site?",
    "Should our volunteers sign anything before they change the site?",
    "If a volunteer improves one of these projects, may they send the improvement back to its authors?",
    "Is there a difference between using a project as it is and changing it, for our purposes?",
    "Where could we find help if a question comes up that this note does not cover?",
    "Should we keep copies of the license texts as they were when we started using each project?",
    "Do any of these texts limit which countries or kinds of organisations may use the projects?",
]
DRAFT_ASKS = [
    "Here is the note I drafted for {audience}. Please be honest: what did I get wrong, what is missing, and "
    "how would you improve it?",
    "I tried to write this up for {audience}. Could you read my draft and tell me whether it is fair and accurate, "
    "and what you would change?",
    "Before I send this to {audience}, could you check my draft? I'd like it to be accurate without being alarming.",
    "This is my draft for {audience}. What would you add, cut or rephrase, and why?",
]

GUIDELINES = [
    "Write in plain, friendly language; assume the person you are helping is intelligent but not a specialist.",
    "When you summarise a document, say what it is for before going into detail.",
    "Quote the exact words of a document when the wording matters, and say where the quote comes from.",
    "Never present a guess as a fact. If something is unclear, say so and suggest who could clarify it.",
    "You are not a lawyer and you do not give legal advice; you help people understand documents and prepare "
    "good questions for their own advisers.",
    "Keep answers organised: short paragraphs, and lists when there are several separate points.",
    "When someone shares a long text, start with the two or three things that matter most to them.",
    "Be honest about uncertainty, but do not bury the answer under caveats.",
    "Adapt the level of detail to the person: more context for newcomers, less for people who know the field.",
    "If a question has a simple answer, give it first and explain afterwards.",
    "Point out when two documents seem to say different things, and explain how both could be true.",
    "Avoid jargon. When a specialised term is unavoidable, explain it the first time you use it.",
    "Respect the person's time: do not repeat what they already told you unless it helps to confirm it.",
    "When you are asked for an opinion, give one, and say what it depends on.",
    "Treat every project and every person mentioned with respect, including the volunteers behind them.",
    "Suggest practical next steps when they would help, but do not invent tasks nobody asked for.",
    "If the person seems worried, acknowledge it briefly and then focus on what they can actually do.",
    "Use examples from everyday life to explain abstract ideas when that makes them easier to grasp.",
    "Remember what was said earlier in the conversation and build on it.",
    "Do not flatter. Acknowledge good questions by answering them well.",
    "Summaries should be faithful: no new claims that the original document does not make.",
    "When the answer depends on facts you do not have, list the facts that would settle it.",
    "Prefer concrete wording such as who, what, when and where over vague generalities.",
    "Keep a calm, warm and professional tone throughout.",
    "It is fine to say that something does not matter much; help people see where their attention is needed.",
    "If the person asks for a recommendation, give one and say what would change your mind.",
    "When you quote a long passage, keep only the sentences that carry the meaning and mark what you left out.",
    "If a document is old or may have been replaced by a newer version, mention it.",
    "Separate what a document requires from what it merely allows or recommends.",
    "When people share drafts, keep their voice: improve clarity and accuracy rather than rewriting everything.",
    "Name the audience you are writing for when it changes the answer, for example a board, a class or a family.",
    "Do not assume bad intent on anyone's part; most confusion about documents comes from unclear wording.",
    "If the person asks the same thing twice, answer again patiently and try a different explanation.",
    "Close long answers with a short recap of the main points when it would help the reader.",
    "Avoid lists longer than about eight items; group related points instead.",
    "Use British or American spelling consistently, following the person you are talking to.",
    "When a text is written in capital letters, read it as ordinary text; the capitals are for emphasis only.",
    "Check names, dates and version numbers against the documents before repeating them.",
]

OPENERS = [
    "I'd like to go through some documents with you slowly, one at a time. Please help me understand them in plain "
    "words, and tell me when something deserves a closer look.",
    "Could we read a few documents together? I'll paste them in parts. I mostly want to know what they mean for "
    "people like me, and what I should ask about.",
    "Can you help me make sense of some documents? I'll share them piece by piece, and at the end I'd like your "
    "honest overall view.",
    "I have a stack of documents to get through and I'd rather not do it alone. I'll paste them in order; please "
    "explain each part and keep track of the questions we should come back to.",
]

REPLIES = [
    "Happy to help, {name}. Here is how I suggest we work: you paste each document, or a part of it, and I will "
    "tell you what it says in plain words, point out anything unusual, and keep a running list of open questions. "
    "At the end we can step back and look at the whole picture together. Whenever you are ready, share the first "
    "one.",
    "Of course, {name}. That sounds like a sensible way to approach it. For each part you share, I will start with "
    "what it is for, then the details that matter for your situation, and I will flag anything you may want to "
    "check with someone else. Please go ahead with the first document.",
    "Gladly. Going through it slowly is the right call, {name}. I will keep my summaries short and faithful to the "
    "text, note where the wording is important, and collect the questions worth raising later. Paste the first "
    "part whenever you like.",
    "Thanks for the context, {name}, it helps a lot. Let's take it step by step: you share the text, I explain it "
    "in everyday language and say how much it matters for you. If anything I say is unclear, stop me and ask. "
    "Go ahead when you are ready.",
]

FIRST_ASKS = [
    "Here is the description that {project} publishes about itself (version {version}). What is it, in plain words?",
    "This is the first document: the project description of {project} {version}. What should I take away from it?",
    "Next on my list is {project} ({version}). Here is how it describes itself. Can you explain it simply?",
    "Here is what {project} {version} says about itself. Who is it for, and what does it do?",
]
PART_ASKS = [
    "Here is another stretch of {project} ({version}). What changed here, in plain words?",
    "This is a later part of {project} {version}. Anything important for people like us?",
    "Continuing with {project} ({version}), a different section this time. What stands out?",
]
NEXT_ASKS = [
    "Here is the next part.",
    "This continues the same document. What matters here?",
    "And the next part. Anything in here I should worry about?",
    "More of the same document:",
    "Continuing. Is any of this relevant for us?",
    "Here's another part. Please keep it simple.",
]
DIGEST_OPEN = [
    "In plain words, this part covers:",
    "Here is what this part says, briefly:",
    "The main points of this part:",
    "Summarising this part:",
]
DIGEST_CLOSE = [
    "Nothing here creates obligations for you by itself; it describes what the project offers.",
    "Most of this is aimed at the people who build with the project, so you can read it lightly.",
    "The details are mostly for the people who maintain your site, but the overall picture is worth keeping.",
    "I would note this down for your summary and move on.",
    "If you share the next part, I'll keep building the picture.",
]
LICENSE_ASKS = [
    "Now the legal side. This is part of the license file that ships with {project} {version} ({path}). What does "
    "it mean for us?",
    "Next, the license. Here is a part of the text that comes with {project} {version}, in the file {path}. Could "
    "you walk me through it?",
    "Our adviser asked me to read the license texts too. This one is from {project} {version} (file {path}). What "
    "are the important points?",
    "Here is a license text that comes bundled with {project} {version} ({path}). Please help me understand what it "
    "asks of people like us.",
]
LICENSE_DIGEST_OPEN = [
    "Here are the points of this text that matter most, in the order they appear:",
    "Reading it in plain words, this part says:",
    "The key passages, briefly:",
]
LICENSE_DIGEST_CLOSE = [
    "As always, your own adviser should confirm how this applies to your situation, but this is the gist.",
    "None of this is unusual for a license of this kind; the conditions are about keeping notices and "
    "not claiming endorsements.",
    "The practical question is whether you pass copies on to anyone else; most duties only start then.",
]
FINALS = [
    "Stepping back from all of this: how would you explain to our board, in a few plain paragraphs, what we are "
    "relying on and what we owe in return? And what would you keep an eye on over the next year?",
    "Thank you, this was a lot. If you had to write the one-page summary for me, what would it say, and which "
    "questions would you still want answered before anyone signs anything?",
    "Looking at everything we read together, what surprised you, what reassured you, and what would you do next "
    "in my place?",
    "What do you think people outside this world most often misunderstand about free software, judging by the "
    "documents we went through? Please answer as you would to a curious friend.",
    "If you were me, how would you thank or support the people behind these projects in a way that actually helps "
    "them? Be concrete and honest.",
    "Could you write a short, warm explanation for our volunteers of why these licenses exist and what they ask "
    "of us, without making it sound scary?",
    "What are the three biggest risks for us here, and for each one, what would a sensible and proportionate "
    "response look like?",
    "Where do you see the line between what we must do and what would simply be good manners toward these "
    "projects? Please talk it through.",
]


# ------------------------------------------------------------------------------------------------ material

@dataclass(frozen=True)
class Doc:
    package: str
    path: str | None = None
    """None: the README (METADATA body); else a file relative to the install root."""
    part: tuple[int, int] = (1, 1)
    """(k, K): the k-th of K parts of the document, split at headings."""
    title: str = ""


@dataclass(frozen=True)
class Lic:
    package: str
    suffix: str
    """Path inside the package's `.dist-info` directory."""
    lines: tuple[int, int] | None = None


# Middle material of each long conversation (what the fill level cuts).
LONG: list[list[Doc]] = [
    [Doc("openai", part=(1, 2), title="the OpenAI client library"), Doc("bpe-openai", title="bpe-openai"),
     Doc("sniffio", title="sniffio")],
    [Doc("openai", part=(2, 2), title="the OpenAI client library")],
    [Doc("openai", "openai/lib/responses_websocket/README.md", title="the OpenAI client's streaming guide"),
     Doc("httpx2", title="httpx2"), Doc("jiter", title="jiter")],
    [Doc("pydantic", part=(1, 7), title="Pydantic"), Doc("annotated-types", title="annotated-types")],
    [Doc("pydantic", part=(2, 7), title="Pydantic's release notes")],
    [Doc("pydantic", part=(3, 7), title="Pydantic's release notes"), Doc("pydantic_core", title="pydantic-core")],
    [Doc("pydantic", part=(4, 7), title="Pydantic's release notes")],
    [Doc("fastapi", title="FastAPI"), Doc("starlette", title="Starlette"), Doc("annotated-doc", title="annotated-doc")],
    [Doc("fastapi", "fastapi/.agents/skills/fastapi/SKILL.md", title="FastAPI's guide"),
     Doc("fastapi", "fastapi/.agents/skills/fastapi/references/dependencies.md", title="FastAPI's guide"),
     Doc("uvicorn", title="Uvicorn"), Doc("platformdirs", title="platformdirs")],
    [Doc("httpcore", title="HTTP Core"), Doc("h11", title="h11")],
    [Doc("httpcore2", title="httpcore2")],
    [Doc("rich", title="Rich"), Doc("textual", title="Textual"), Doc("markdown-it-py", title="markdown-it-py"),
     Doc("mdit-py-plugins", title="mdit-py-plugins"),
     Doc("mdit-py-plugins", "mdit_py_plugins/texmath/README.md", title="mdit-py-plugins")],
    [Doc("pydantic", part=(5, 7), title="Pydantic's release notes"),
     Doc("pydantic", part=(6, 7), title="Pydantic's release notes")],
    [Doc("numpy", title="NumPy"), Doc("numpy", "numpy/ma/README.rst", title="NumPy's masked arrays"),
     Doc("numpy", "numpy/ma/API_CHANGES.txt", title="NumPy's masked-array changes"),
     Doc("nvidia-ml-py", title="the NVIDIA management library bindings")],
    [Doc("httpx", title="HTTPX"), Doc("anyio", title="AnyIO"), Doc("idna", title="idna"),
     Doc("certifi", title="Certifi"),
     Doc("prometheus_client", title="the Prometheus client"), Doc("linkify-it-py", title="linkify-it-py"),
     Doc("click", title="Click"), Doc("pygments", title="Pygments"), Doc("mdurl", title="mdurl"),
     Doc("typing_extensions", title="typing_extensions")],
    [Doc("pydantic", part=(7, 7), title="Pydantic's release notes")],
]

# The license texts that close the long conversations, concatenated in this order and cut into one part per
# conversation at paragraph boundaries.
LEGAL: list[Lic] = [
    Lic("numpy", "licenses/LICENSE.txt"),
    Lic("openai", "licenses/LICENSE", (1, 176)),
    Lic("numpy", "licenses/numpy/_core/src/highway/LICENSE", (216, 370)),
    Lic("numpy", "licenses/numpy/random/LICENSE.md"), Lic("numpy", "licenses/numpy/random/src/mt19937/LICENSE.md"),
    Lic("numpy", "licenses/numpy/random/src/distributions/LICENSE.md"),
    Lic("numpy", "licenses/numpy/random/src/philox/LICENSE.md"),
    Lic("numpy", "licenses/numpy/random/src/sfc64/LICENSE.md"),
    Lic("numpy", "licenses/numpy/fft/pocketfft/LICENSE.md"),
    Lic("numpy", "licenses/numpy/linalg/lapack_lite/LICENSE.txt"),
    Lic("numpy", "licenses/numpy/ma/LICENSE"), Lic("numpy", "licenses/numpy/_core/src/multiarray/dragon4_LICENSE.txt"),
    Lic("numpy", "licenses/numpy/_core/src/npysort/x86-simd-sort/LICENSE.md"),
    Lic("numpy", "licenses/numpy/_core/src/umath/svml/LICENSE"),
    Lic("numpy", "licenses/numpy/_core/include/numpy/libdivide/LICENSE.txt"),
    Lic("numpy", "licenses/numpy/_core/src/common/pythoncapi-compat/COPYING"),
    Lic("textual", "licenses/LICENSE"), Lic("httpcore", "licenses/LICENSE.md"), Lic("h11", "licenses/LICENSE.txt"),
    Lic("idna", "licenses/LICENSE.md"), Lic("uvicorn", "licenses/LICENSE.md"), Lic("pydantic", "licenses/LICENSE"),
    Lic("typing-inspection", "licenses/LICENSE"), Lic("markdown-it-py", "licenses/LICENSE.markdown-it"),
    Lic("linkify-it-py", "licenses/LICENSE"), Lic("mdurl", "LICENSE"), Lic("prometheus_client", "licenses/NOTICE"),
]

SHORT: list[Lic] = [
    Lic("platformdirs", "licenses/LICENSE"), Lic("uvicorn", "licenses/LICENSE.md"),
    Lic("markdown-it-py", "licenses/LICENSE"),
    Lic("h11", "licenses/LICENSE.txt"), Lic("annotated-types", "licenses/LICENSE"),
    Lic("pydantic_core", "licenses/LICENSE"), Lic("fastapi", "licenses/LICENSE"), Lic("sniffio", "LICENSE.MIT"),
    Lic("rich", "licenses/LICENSE"), Lic("httpx", "licenses/LICENSE.md"), Lic("starlette", "licenses/LICENSE.md"),
    Lic("click", "licenses/LICENSE.txt"), Lic("pygments", "licenses/LICENSE"), Lic("jiter", "licenses/LICENSE"),
    Lic("numpy", "licenses/numpy/random/src/pcg64/LICENSE.md"), Lic("anyio", "licenses/LICENSE"),
]

SHORT_FINALS = [
    "What does this allow us to do, and what does it ask of us in return? Please answer in plain words.",
    "Is there anything in here that should worry a small organisation like ours?",
    "How would you explain this license to a volunteer who has never read one?",
    "If we changed the site and passed it to a new agency, what would this text require?",
    "What is the most common misunderstanding about licenses like this one?",
    "Which sentence in here matters most for us, and why?",
    "Can you put this into three or four plain sentences I could read aloud at a meeting?",
    "Does this text say anything about who is responsible if something goes wrong?",
]


def long_packages() -> set[str]:
    return {d.package for docs in LONG for d in docs} | {lic.package for lic in LEGAL}


def short_packages() -> set[str]:
    return {lic.package for lic in SHORT}


# ------------------------------------------------------------------------------------------------ text helpers

_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_TAG = re.compile(r"<[^>]+>")
_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_CREDIT = re.compile(r"\s+by \[?@[\w-]+(\]\([^)]*\))? in \[?#\d+(\]\([^)]*\))?")


def _doc_source(d: Doc) -> Source:
    return readme(d.package) if d.path is None else read(d.package, d.path)


def _doc_lines(d: Doc) -> list[str]:
    """The document's lines without badge/image-only and HTML-only lines; the k-th of K parts split at headings."""
    lines = [ln.rstrip() for ln in _doc_source(d).text.split("\n")]
    lines = [ln for ln in lines
             if not re.fullmatch(r"\s*(<[^>]*>\s*)+|\s*(\[?!\[[^\]]*\]\([^)]*\)\]?(\([^)]*\))?\s*)+", ln)]
    while lines and not lines[-1].strip():
        lines.pop()
    k, K = d.part
    if K == 1:
        return lines
    heads = [i for i, ln in enumerate(lines) if ln.startswith("## ")] or list(range(0, len(lines), 50))
    cuts = [0]
    for j in range(1, K):
        want = len(lines) * j // K
        cuts.append(min(heads, key=lambda h: abs(h - want)))
    cuts.append(len(lines))
    return lines[cuts[k - 1]:cuts[k]]


def _chunks(lines: list[str], target_chars: int = 4500) -> list[list[str]]:
    out: list[list[str]]
    cur: list[str]
    out, cur, size, fence = [], [], 0, False
    for ln in lines:
        starts_section = bool(_HEADING.match(ln)) and not fence
        if size >= target_chars and not fence and (starts_section or not ln.strip()):
            out.append(cur)
            cur, size = [], 0
        if ln.strip().startswith("```"):
            fence = not fence
        cur.append(ln)
        size += len(ln) + 1
    if cur:
        out.append(cur)
    return out


def _plain(s: str) -> str:
    s = _LINK.sub(r"\1", s)
    s = _TAG.sub("", s)
    s = s.replace("**", "").replace("`", "").replace("*", "").strip()
    return re.sub(r"\s+", " ", s)


def _first_sentence(s: str, limit: int = 260) -> str:
    first = _SENT.split(s, 1)[0]
    return first if len(first) <= limit else first[:limit].rsplit(" ", 1)[0] + "..."


def _digest(lines: list[str], rng: random.Random, opener: list[str], closer: list[str], cap: int = 2200) -> str:
    """First sentence of each prose paragraph, under its section heading (code blocks, tables and HTML skipped)."""
    points: list[str] = []
    para: list[str]
    heading, fence, para = "", False, []

    def flush() -> None:
        nonlocal heading, para
        text = _plain(" ".join(para))
        if len(text) > 40:
            sent = _first_sentence(text)
            points.append(f"- **{heading}**: {sent}" if heading else f"- {sent}")
            heading = ""
        para = []

    for ln in lines + [""]:
        s = ln.strip()
        if s.startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        m = _HEADING.match(s)
        if m:
            flush()
            heading = _plain(m.group(2))
            continue
        if not s or s.startswith(("|", "<", ">>>", "    ")) or set(s) <= set("-=~*^#"):
            if para:
                flush()
            continue
        if s[:2] in ("* ", "- ", "+ "):
            if para:
                flush()
            s = s[2:].strip()
        para.append(_CREDIT.sub("", s))
    body, size = [], 0
    for p in points:
        if size + len(p) > cap:
            break
        body.append(p)
        size += len(p)
    if not body:
        body = ["- It is mostly reference material without much prose."]
    return "\n".join([pick(rng, opener), *body, "", pick(rng, closer)])


_JARGON = re.compile(
    r"\b(python|java\w*|implement\w*|compil\w*|derivative|api|struct|prove|proof|integer|average|compute|"
    r"calculat\w*|equation|solve|matrix|prime|tools?|functions?|code|program\w*)\b|[%$;{}]|\d+\s*(km|kg|minutes|"
    r"hours|seconds)\b", re.IGNORECASE)


def _license_digest(text: str, rng: random.Random, cap: int = 3800) -> str:
    """Key sentences of a license text, in order: evenly spread over the text, skipping technical ones."""
    paras = [re.sub(r"\s+", " ", p).strip() for p in re.split(r"\n\s*\n", text)]
    sents = [x.strip() for p in paras if len(p) > 80 for x in _SENT.split(p)]
    sents = [x for x in sents if 60 <= len(x) <= 400 and not _JARGON.search(x) and not x.isupper()]
    total = sum(len(x) + 3 for x in sents)
    step = max(1, round(total / cap))
    out, size = [], 0
    for x in sents[::step]:
        if size + len(x) > cap:
            break
        out.append("- " + x)
        size += len(x) + 3
    if not out:
        out = ["- It is short and mostly consists of notices and disclaimers."]
    return "\n".join([pick(rng, LICENSE_DIGEST_OPEN), *out, "", pick(rng, LICENSE_DIGEST_CLOSE)])


_LICENSE_NAMES = [
    (r"GNU GENERAL PUBLIC LICENSE|GNU General Public License", "the GNU General Public License"),
    (r"GCC RUNTIME LIBRARY EXCEPTION|GCC Runtime Library Exception", "the GCC Runtime Library Exception"),
    (r"Lesser General Public License|LGPL", "the GNU Lesser General Public License"),
    (r"Apache License", "the Apache License"), (r"BSD|Redistribution and use in source and binary forms",
                                                  "BSD-style licenses"),
    (r"Permission is hereby granted, free of charge", "the MIT license"), (r"Creative Commons|CC0", "CC0"),
    (r"Zero Clause", "the zero-clause BSD license"), (r"NCSA|University of Illinois", "the NCSA license"),
]


def _draft(rng: random.Random, org: str, projects: list[str], lic_text: str, min_chars: int) -> str:
    """The note the person drafted: sentences in a seeded order, then questions for their adviser, at least
    `min_chars` long so that the end of the conversation is the person's own plain-language writing."""
    names = [label for rx, label in _LICENSE_NAMES if re.search(rx, lic_text)] or ["several permissive licenses"]
    uniq = list(dict.fromkeys(projects))
    proj = ", ".join(uniq[:-1]) + f" and {uniq[-1]}" if len(uniq) > 1 else uniq[0]
    lic = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]
    sentences = DRAFT[:5] + rng.sample(DRAFT[5:], len(DRAFT) - 5)
    questions = rng.sample(DRAFT_QUESTIONS, len(DRAFT_QUESTIONS))
    n_s, n_q = 20, 4
    while True:
        body = " ".join(x.format(Org=org[0].upper() + org[1:], projects=proj, licenses=lic) for x in sentences[:n_s])
        text = body + "\n\nQuestions for our adviser:\n" + "\n".join(f"- {q}" for q in questions[:n_q])
        if len(text) >= min_chars or (n_s == len(sentences) and n_q == len(questions)):
            return text
        if n_s < len(sentences):
            n_s += 1
        else:
            n_q += 1


def _license(parts: list[Lic]) -> tuple[str, list[dict[str, object]], str, str, str]:
    """(text, provenance entries, project, version, path) of the license parts."""
    texts, prov = [], []
    for lic in parts:
        src = read(lic.package, dist_info(lic.package, lic.suffix))
        lines = src.text.rstrip("\n").split("\n")
        a, b = lic.lines or (1, len(lines))
        texts.append("\n".join(lines[a - 1:b]).strip("\n"))
        prov.append(src.provenance(lines=[a, min(b, len(lines))]))
    first = prov[0]
    return "\n\n".join(texts), prov, str(first["package"]), str(first["version"]), str(first["path"])


def _legal_parts(count: int) -> list[list[Lic]]:
    """LEGAL cut into `count` parts of about equal length at blank lines (a part may span several files),
    preferring nearby cuts whose last paragraphs read as plain language."""
    flat: list[tuple[Lic, int, str]] = []  # (file, line number, text)
    for lic in LEGAL:
        src = read(lic.package, dist_info(lic.package, lic.suffix))
        lines = src.text.rstrip("\n").split("\n")
        a, b = lic.lines or (1, len(lines))
        flat += [(lic, i, lines[i - 1]) for i in range(a, min(b, len(lines)) + 1)]
        flat.append((lic, -1, ""))  # file boundary = paragraph boundary
    pos = [0]
    for _lic, _i, t in flat:
        pos.append(pos[-1] + len(t) + 1)
    total = pos[-1]
    text = "\n".join(t for _, _, t in flat)
    blanks = [idx + 1 for idx, (_l, _i, t) in enumerate(flat) if not t.strip()]

    def jargon_before(idx: int) -> int:  # technical words in the ~3,000 characters that end a part
        return len(_JARGON.findall(text[max(0, pos[idx] - 3000):pos[idx]]))

    cuts = [0]
    for j in range(1, count):
        want = total * j / count
        near = [b for b in blanks if abs(pos[b] - want) <= 1200 and b > cuts[-1]]
        cuts.append(min(near, key=lambda b: (jargon_before(b), abs(pos[b] - want))) if near else
                    min((b for b in blanks if b > cuts[-1]), key=lambda b: abs(pos[b] - want)))
    cuts.append(len(flat))
    parts = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        group: list[Lic] = []
        for lic, i, _t in flat[a:b]:
            if i < 0:
                continue
            if group and group[-1].package == lic.package and group[-1].suffix == lic.suffix:
                group[-1] = Lic(lic.package, lic.suffix, ((group[-1].lines or (i, i))[0], i))
            else:
                group.append(Lic(lic.package, lic.suffix, (i, i)))
        parts.append(group)
    return parts


# ------------------------------------------------------------------------------------------------ builders

def _system(rng: random.Random, head_min: int, opening: str, reply: str) -> str:
    """A general assistant system prompt: guidelines in a seeded order, enough of them that the opening of the
    conversation (system, opening, reply) is ordinary prose for its first `head_min` characters."""
    intro = pick(rng, ["You are a thoughtful, knowledgeable assistant.",
                       "You are a helpful assistant for people who need to understand documents.",
                       "You are a friendly and careful assistant.",
                       "You are an assistant that helps people read and understand long documents."])
    order = rng.sample(GUIDELINES, len(GUIDELINES))
    chosen: list[str] = []
    for g in order:
        chosen.append(g)
        text = intro + "\n\nGuidelines:\n" + "\n".join(f"- {c}" for c in chosen)
        if len(chosen) >= 10 and len(text) + len(opening) + len(reply) >= head_min:
            return text
    return intro + "\n\nGuidelines:\n" + "\n".join(f"- {c}" for c in chosen)


def build_long() -> list[dict[str, Any]]:
    out = []
    legal = _legal_parts(len(LONG))
    for k, docs in enumerate(LONG):
        lics = legal[k]
        seed = SEED_BASE + k
        rng = random.Random(seed)
        name, who = PERSONAS[k]
        opening = f"{who} {pick(rng, OPENERS)}"
        reply = pick(rng, REPLIES).format(name=name)
        system = _system(rng, 4300, opening, reply)
        lic_text, lic_prov, lic_pkg, lic_ver, lic_path = _license(lics)
        tail_ask = pick(rng, LICENSE_ASKS).format(project=lic_pkg, version=lic_ver, path=lic_path)
        lic_digest = _license_digest(lic_text, rng)
        org, audience = CONTEXT[k]
        ask, close = pick(rng, DRAFT_ASKS).format(audience=audience), FINALS[k % len(FINALS)]
        # the person's draft is long enough that the last TAIL_PROSE characters are their own writing and the
        # assistant's digest, not the pasted license
        need = TAIL_PROSE - len(lic_digest) - len(ask) - len(close) - 8
        draft = _draft(rng, org, [d.title or d.package for d in docs], lic_text, need)
        final = ask + "\n\n" + draft + "\n\n" + close
        # middle: every document split into chunks, each with its ask and digest seeds fixed up front
        plan: list[tuple[Doc, Source, list[str], str, int]] = []
        for d in docs:
            src = _doc_source(d)
            for j, ch in enumerate(_chunks(_doc_lines(d))):
                asks = FIRST_ASKS if d.part[0] == 1 else PART_ASKS
                ask = (pick(rng, asks).format(project=d.title or d.package, version=src.version) if j == 0
                       else pick(rng, NEXT_ASKS))
                plan.append((d, src, ch, ask, rng.randrange(1 << 30)))
        capacity = sum(len(p[2]) for p in plan)

        def render(n: int, plan=plan, system=system, opening=opening, reply=reply, tail_ask=tail_ask,
                   lic_text=lic_text, lic_digest=lic_digest, final=final) -> Messages:
            msgs: Messages = [{"role": "system", "content": system}, {"role": "user", "content": opening},
                              {"role": "assistant", "content": reply}]
            left = n
            for _d, _src, ch, ask, dseed in plan:
                if left <= 0:
                    break
                part = ch[:left]
                left -= len(part)
                msgs.append({"role": "user", "content": ask + "\n\n" + "\n".join(part).strip("\n")})
                msgs.append({"role": "assistant", "content": _digest(part, random.Random(dseed), DIGEST_OPEN,
                                                                     DIGEST_CLOSE)})
            msgs.append({"role": "user", "content": tail_ask + "\n\n" + lic_text})
            msgs.append({"role": "assistant", "content": lic_digest})
            msgs.append({"role": "user", "content": final})
            return msgs

        pid = f"chat-{k + 1:02d}"
        msgs, _, n = fit(pid, render, capacity, LONG_FIT)
        used: list[dict[str, Any]]
        used, left = [], n
        for d, src, ch, _ask, _s in plan:
            if left <= 0:
                break
            take = min(left, len(ch))
            left -= take
            if used and used[-1]["path"] == src.path and used[-1].get("part") == list(d.part):
                used[-1]["chunk_lines"] += take
            else:
                used.append(src.provenance(part=list(d.part), chunk_lines=take))
        out.append({"id": pid, "domain": "chat", "messages": msgs,
                    "provenance": {"material": used + lic_prov, "framing": FRAMING, "seed": seed}})
    return out


def build_short() -> list[dict[str, Any]]:
    """One person, one short license file, one open question; the system prompt's guidelines are the fill."""
    out = []
    for k, lic in enumerate(SHORT):
        seed = SHORT_SEED_BASE + k
        rng = random.Random(seed)
        name, who = PERSONAS[(k + 5) % len(PERSONAS)]
        text, prov, pkg, ver, path = _license([lic])
        who_short = _first_sentence(who, 400)
        user = (f"{who_short} {pick(rng, LICENSE_ASKS).format(project=pkg, version=ver, path=path)}\n\n{text}\n\n"
                f"{SHORT_FINALS[k % len(SHORT_FINALS)]}")
        intro = pick(rng, ["You are a thoughtful, knowledgeable assistant.",
                           "You are a friendly and careful assistant."])
        order = rng.sample(GUIDELINES, len(GUIDELINES))

        def render(n: int, intro=intro, order=order, user=user) -> Messages:
            system = intro + ("\n\nGuidelines:\n" + "\n".join(f"- {g}" for g in order[:n - 1]) if n > 1 else "")
            return [{"role": "system", "content": system}, {"role": "user", "content": user}]

        pid = f"chat-short-{k + 1:02d}"
        msgs, _, _ = fit(pid, render, len(order) + 1, SHORT_FIT)
        out.append({"id": pid, "domain": "chat", "messages": msgs,
                    "provenance": {"material": prov, "framing": FRAMING, "seed": seed}})
    return out
