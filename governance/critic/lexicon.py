"""The general-English words the critic's cues are made of (no organisation's vocabulary).

Each set is a closed class of policy English that plain-language guides and drafting manuals list:
vague quantifiers and hedges, modal and deontic words, time expressions, sanctions, the verbs of
acts that happen at a time, and the nouns of roles that can own an act. They are data for
`governance.critic.cues`, which turns them into spaCy matchers.
"""

from __future__ import annotations

# Vague quantity, frequency, standard or scope: flagged where the sentence states a rule.
VAGUE_WORDS = frozenset(
    """some several many numerous various few regularly periodically occasionally frequently often
    routinely promptly timely reasonable reasonably unreasonable unreasonably appropriate
    appropriately inappropriate inappropriately adequate adequately inadequate sufficient
    sufficiently insufficient suitable suitably unsuitable significant significantly substantial
    substantially excessive modest minor sparingly carefully ideally unusual exceptional relevant
    strong large heavy busy urgent satisfactory unsatisfactory proper properly tidy clean""".split()
)
VAGUE_PHRASES = (
    "as soon as possible",
    "as soon as practicable",
    "as needed",
    "as appropriate",
    "as necessary",
    "where possible",
    "where practicable",
    "where appropriate",
    "where reasonable",
    "if possible",
    "if practicable",
    "if appropriate",
    "when possible",
    "when practicable",
    "when appropriate",
    "from time to time",
    "in a timely manner",
    "in due course",
    "without undue delay",
    "case-by-case",
    "case by case",
    "short notice",
    "to the maximum extent possible",
    "to the extent possible",
    "as far as possible",
    "as possible",
    "earliest convenience",
    "do what you can",
    "be seen as",
    "good reason",
    "good cause",
)
# Vague quantities in more than one word: like VAGUE_WORDS, flagged where the sentence states a rule.
VAGUE_QUANTITY_PHRASES = (
    "a number of",
    "a lot",
    "lots of",
    "and/or",
    "and so on",
    "high-profile",
    "high profile",
    "the majority of",
    "the bulk of",
    "an extended period",
    "a prolonged period",
    "a long period",
)
# Hedges make a rule vague wherever they stand: its exceptions are left unsaid.
HEDGES = ("generally", "normally", "usually", "typically", "in general", "as a rule", "in principle", "almost all")
# Vague times: a deadline that is none.
VAGUE_TIMES = (
    "promptly",
    "timely",
    "as soon as possible",
    "as soon as practicable",
    "regularly",
    "periodically",
    "from time to time",
    "occasionally",
    "frequently",
    "routinely",
    "in due course",
    "without undue delay",
    "earliest convenience",
    "appropriate intervals",
    "reasonable period",
    "reasonable time",
    "near the end of",
    "towards the end of",
    "toward the end of",
    "around the time",
)

# Words that make a sentence state a rule (a requirement, permission or entitlement).
NORMATIVE_WORDS = frozenset(
    """must shall should may can could will need needs require requires optional
    entitled eligible exempt allowed permitted prohibited acceptable reimbursable responsible
    responsibility expected please receive receives we ought""".split()
)

# Time limits and points.
TIME_PHRASES = (
    "no later than",
    "not later than",
    "prior to",
    "before",
    "in advance",
    "ahead of",
    "immediately",
    "at once",
    "straight away",
    "right away",
    "same day",
    "on the day",
    "first",
    "at the end of",
    "at the start of",
    "at the beginning of",
    "by the end of",
    "annually",
    "monthly",
    "weekly",
    "daily",
    "quarterly",
    "yearly",
    "when",
    "whenever",
    "any time",
    "upon",
    "on receipt",
    "at the time",
    "during",
    "throughout",
    "until",
    "at the same time",
    "deadline",
    "at all times",
    "continuously",
)
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
MONTHS = frozenset("january february march april may june july august september october november december".split())
PERIODS = frozenset("day days week weeks month months year years quarter quarters term terms period periods".split())
# Recurring occasions that set a moment ("at every meeting", "on each visit").
OCCASIONS = frozenset("meeting session visit shift hire event booking date occasion semester".split())

# Acts that happen at a time (an owner's missing deadline is one of these).
TIMED_VERBS = frozenset(
    """submit send notify inform tell report apply request register file pay repay return
    complete respond reply review approve refuse decide check record log document declare contact
    acknowledge address investigate inspect meet renew update refer follow-up reach consider delete
    destroy attend refund recover wipe collect publish process confirm reimburse remove arrange
    schedule announce circulate forward escalate issue prepare deliver invoice reconcile countersign
    terminate replace repair upload produce draft appoint invite remind alert undertake
    perform finalise finalize answer resolve verify audit""".split()
)
# Decisions: "X decides / approves …" in the present says who decides, not a step with a moment.
DECISION_VERBS = frozenset("decide approve refuse reject consider determine grant authorise authorize".split())
# Acts the organisation does (an agentless passive of one names no owner).
ORGANISATION_VERBS = frozenset(
    """review consider approve authorise authorize grant refuse reject decide assess inspect monitor
    audit investigate acknowledge address record log destroy delete notify inform tell ask restrict
    recover end agree purchase advertise encrypt allocate assign evaluate examine verify process
    suspend withdraw refer check deduct remove terminate cancel exclude dismiss issue complete test
    withhold confirm arrange schedule determine""".split()
)
# Acts the one a rule binds does with their own things: an agentless passive of one of these
# after a modal ("must be submitted", "may be carried over", "should be raised") names its agent
# already (the claimant, the holder), and so is no missing owner.
READER_VERBS = frozenset(
    """submit make return raise report keep use take carry pay repay send share store display lend
    wear follow lock save book claim bring attach sign register park declare provide give post print
    email spend shred place decline buy hand change request obtain update avoid collect""".split()
)
# Rules of conduct that hold all the time, with no moment to miss ("must be kept locked").
STANDING_VERBS = frozenset(
    """use keep wear share store follow lock display lend park bring avoid carry hold treat protect
    encrypt accompany limit restrict allow permit access connect transfer leave label mark""".split()
)
# Participles that state how things are, not an act someone does ("is entitled", "are shown in").
STATE_PARTICIPLES = frozenset(
    """entitled required needed permitted allowed prohibited expected based located involved covered
    listed described shown known defined designed intended set limited related concerned included
    exempted subject called named considered regarded deemed treated lost stolen damaged compromised
    incurred earned accompanied closed calculated dealt governed met forfeited seen""".split()
)
# People a rule is about: a passive whose subject is one of them is done to them by someone else
# ("Candidates will be given notice", "Staff who lose … may be charged").
PERSON_NOUNS = frozenset(
    """you staff employee employees worker workers candidate candidates applicant applicants member
    members volunteer volunteers student students visitor visitors contractor contractors tenant
    tenants holder holders user users traveller travellers traveler travelers claimant claimants
    participant participants officer officers manager managers person people individual individuals
    colleague colleagues pupil pupils child children parent parents resident residents customer customers
    client clients patient patients learner learners adult adults""".split()
)
# Irregular participles of the verbs above and of common policy verbs.
IRREGULAR_PARTICIPLES = {
    "told": "tell",
    "done": "do",
    "made": "make",
    "given": "give",
    "taken": "take",
    "kept": "keep",
    "sent": "send",
    "paid": "pay",
    "held": "hold",
    "set": "set",
    "put": "put",
    "sought": "seek",
    "brought": "bring",
    "bought": "buy",
    "shown": "show",
    "written": "write",
    "known": "know",
    "seen": "see",
    "dealt": "deal",
    "withdrawn": "withdraw",
    "undertaken": "undertake",
    "met": "meet",
    "left": "leave",
    "chosen": "choose",
    "repaid": "repay",
    "withheld": "withhold",
}
BE_FORMS = frozenset("be is are was were been being am 're 'm".split())

# Verbs an instruction starts with ("Submit the form", "Do not share").
IMPERATIVE_VERBS = frozenset(
    """add apply ask attach avoid be book call cancel change check choose click complete confirm
    consult contact create decline delete discuss do download email encrypt enable ensure
    enter fill find follow get give go have head include inform install keep let lock log make mark
    note notify obtain open pay phone post print provide read record refer register remember remove
    renew report request reschedule return review revoke save search see select send set share sign
    store submit switch take tell turn update upload use utilize utilise verify visit wait wear write""".split()
)
# A clause that starts so is subordinate; the instruction follows its comma.
LEADING_WORDS = frozenset(
    """if when whenever once after before for to in as upon while where unless until following
    during with because since although though given""".split()
)
# An instruction that only points to help is no requirement ("contact X if you have questions").
POINTER = r"\b(?:if you have (?:any )?questions|for (?:more )?(?:information|details|assistance|help))\b"
# Imperatives that forbid nothing.
NOT_PROHIBITIONS = frozenset("expect hesitate worry".split())

# Sanctions, refusals and losses: what happens when a rule is broken.
CONSEQUENCE_PATTERNS = (
    r"\b(?:will|would|may|might|shall|can|could)\s+(?:not|no longer)\s+be\s+(?:paid|reimbursed|accepted|"
    r"approved|processed|considered|refunded|covered|allowed|granted|valid|renewed|issued|taken)\b",
    r"\bcannot\s+be\s+(?:approved|accepted|paid|reimbursed|processed|used|recovered|restored|reinstated|refunded)\b",
    r"\b(?:will|would|may|might|shall|can|could)\s+no longer\b",
    r"\bresult(?:s|ed|ing)?\s+in\b",
    r"\blead(?:s)?\s+to\b",
    r"\bdisciplinary\b",
    r"\bmisconduct\b",
    r"\boffen[cs]es?\b",
    r"\bpenalt(?:y|ies)\b",
    r"\bsanctions?\b",
    r"\bdismiss(?:al|ed)\b",
    r"\bforfeit\w*\b",
    r"\bwill\s+be\s+lost\b",
    r"\b(?:will|would|may|shall)\s+lose\b|\bloses\b",
    r"\bdeducted\b",
    r"\b(?:will|may|shall)\s+be\s+(?:fined|removed|excluded|dismissed|barred|banned)\b",
    r"\bwill\s+be\s+(?:charged|rejected|refused|cancelled|canceled|withdrawn|returned|recovered)\b",
    r"\b(?:be|being)\s+withheld\b",
    r"\bheld\s+back\b",
    r"\blapse[sd]?\b",
    r"\b(?:will|may|shall)\s+be\s+(?:taken|recovered)\s+from\b",
    r"\btreated\s+as\s+(?:unauthori[sz]ed|unpaid|misconduct)\b",
    r"\b(?:suspended|revoked|terminated)\b",
    r"\botherwise\b",
    r"\bpay\s+(?:back\s+)?the\s+difference\b",
    r"\bor\s+(?:it|you|they|she|he|the\s+\w+)\s+will\b",
)
# The whole document's rules, named as such in a general enforcement clause ("this policy", "any
# of these terms", "any provision of these Regulations").
WHOLE_DOCUMENT = (
    r"\b(?:this|these)\s+(?:policy|policies|procedures?|rules|code|standards?|guidance|scheme|guidelines|"
    r"arrangements|charter|agreement|terms|regulations|directive|circular|instructions|programme|program|"
    r"sop|specification|document|handbook|practices|protocol|manual|conditions|by-?laws|requirements|"
    r"framework|plan)\b"
)
BREACH = (
    r"\b(?:breach\w*|violat\w*|fail\w*\s+to\s+(?:comply|follow|observe|meet|adhere|keep)|non-?compliance|"
    r"contraven\w*|ignor\w*|break|breaks|breaking|broken|(?:do|does|did)\s+not\s+(?:comply|follow|observe|"
    r"keep\s+to|abide))\b"
)
# What a general enforcement clause may say is done to whoever breaches the whole document, on top
# of `CONSEQUENCE_PATTERNS` (which it also counts): a sanction, a loss or the end of an agreement
# ("we may end the agreement", "liable to a fine", "may be stood down"). Read only beside a breach
# of the whole document, where these words can mean nothing else.
ENFORCEMENT = (
    r"\b(?:disciplin\w*|dismiss\w*|suspen\w*|terminat\w*|revo\w*|withdraw\w*|cancel\w*|fine[sd]?|"
    r"sanction\w*|infraction\w*|prosecut\w*|liable|censure\w*|expel\w*|ban|bans|banned|remov\w*|end|"
    r"ended|repay\w*|recover\w*|deduct\w*|refus\w*|lose|stood\s+down|dealt\s+with|action\s+(?:under|against))\b"
)

# Roles and bodies that can own an act; a vaguely named owner is no owner.
ROLE_NOUNS = frozenset(
    """supervisor supervisors manager managers director directors head heads officer officers
    coordinator committee board team office department division unit lead chair secretary
    administrator owner official representative auditor audit controller registrar dean principal
    executive ombudsman desk panel council advisor adviser tutor instructor lecturer examiner mentor
    approver reviewer assessor inspector clerk specialist counsellor body governors trustees""".split()
)
VAGUE_OWNERS = frozenset("leadership management someone somebody".split())
# Suffixes of nouns for one who acts ("the original evaluator", "the employer"), and the common
# words that end so without naming anyone.
AGENT_SUFFIXES = ("or", "ors", "er", "ers", "ist", "ists", "ant", "ants")
NOT_AGENTS = frozenset(
    """number numbers other others letter letters paper papers matter matters order orders later
    register registers computer computers further quarter quarters water error errors factor
    factors sector sectors corridor floor floors border borders center centre centers chapter
    chapters parameter parameters meter meters folder folders server servers browser browsers
    printer printers counter voucher vouchers transfer transfers cover offer offers minister
    important relevant significant constant instant distant vacant pleasant""".split()
)
VAGUE_OWNER_QUALIFIERS = frozenset("appropriate relevant responsible competent".split())
APPROVAL_NOUNS = frozenset(
    "approval approvals authorization authorisation authorizations permission consent sign-off".split()
)
# Acts someone other than the reader does, named as nouns ("requires an enhanced check").
ACT_NOUNS = frozenset(
    "check checks review assessment inspection audit vetting clearance screening verification".split()
)
# Words after which "an approved X" is a point in time ("within ten days of an approved request").
POINT_IN_TIME = frozenset("of after following from since upon".split())
# Words after which an approval is a procedure's name, not a condition ("the approval process").
APPROVAL_COMPOUNDS = frozenset("process procedure form forms request requests workflow email letter number".split())
# Nouns after which a vague owner word is a modifier, not who acts ("secret management tools").
COMPOUND_HEADS = frozenset(
    """approach approaches system systems solution solutions tool tools software plan plans practice
    practices framework frameworks information process processes strategy strategies""".split()
)
# Deferrals: the act is defined by a named procedure or another part, which would say who and when.
DEFERRAL = (
    r"\b(?:in line with|in accordance with|as per|as (?:described|set out|explained|defined|specified|"
    r"shown|listed) in|under the [\w' -]*?(?:procedure|policy|process|rules|regulations?|scheme|arrangements)|"
    r"through the [\w' -]*?(?:process|procedure))\b"
)
# Words that open a clause naming a condition ("if you need to …"): a modal in it requires nothing.
CONDITION_OPENERS = ("if", "unless", "whether")
# Words that open a clause naming a case or a moment ("when it is granted", "before it is
# advertised", "how spaces are allocated"): an act in it is no step of the rule.
CASE_OPENERS = ("when", "once", "after", "before", "until", "if", "unless", "how", "where")
# Nouns a "be to" sentence states a purpose with, not a duty ("The aim of this policy is to …").
PURPOSE_NOUNS = frozenset(
    "purpose purposes aim aims goal goals objective objectives intention idea point mission".split()
)
# Infinitives after an instruction that say what the reader wants from it ("Submit this form to
# initiate the request"): the reader's own way of getting something, at a moment they pick.
PURPOSE_VERBS = frozenset("initiate start begin open request apply obtain get have receive claim access".split())
# Modals of what will or may happen (not of duty): the organisation's commitments and discretion.
COMMITMENT_MODALS = frozenset("will would may might can could".split())
# Modal verbs: a clause that has one states a rule of its own.
MODALS = frozenset("must shall should may can could will would".split())
# An approval's participles ("only after they have been approved").
APPROVED = frozenset("approved authorised authorized".split())
