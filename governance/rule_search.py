"""Every statement of a claimed rule across the active library, and the statements that lean on it.

A claim ("The attendance requirement changed to 60% last month") names a quantity (a percentage)
about a subject (its words, less the change cue and the value). A rule is rarely stated once: the
attendance minimum stands in the continuous-assessment, examination-registration, advising,
add/drop and internship policies. Reading only the chunks closest to the claim misses some, and an
approval then leaves the old value standing beside the new one. So the whole active library is
read:

- every sentence holding a value of the claimed kind is scored by how much of the claim's subject
  it says (the idf-weighted share of the claim's words in the sentence and its section heading:
  a section headed "Attendance Requirement" speaks of it in every sentence);
- the old value is the one the best-scoring sentences hold (the most common among them);
- each sentence scoring at least `SAME_SUBJECT` of the best that holds the old value is a
  statement of the rule, with the claimed value proposed in its place;
- in those chunks, the other values of the kind in sentences about the subject are *dependent*
  statements ("below 75% may receive condonation ... down to 65%"): flagged for the reviewer's
  edit, and said to no longer fit when the new value crosses them (65% lay below the old 75% and
  lies above the new 60%); so is the old value where it states another rule of the same section
  (a warning "below 75% at either review"), which the reviewer may want to change too.

The same scoring, with the weights and threshold kept on the ticket (`Rule`), is what the
post-update check reads to find any active chunk still stating the old value.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field

from llama_index.core.schema import TextNode

from governance.claims import without_when
from governance.contradictions import Contradiction, Value, _render, _sentence_spans, extract_values
from pipeline.language import glossary
from pipeline.language.text import canonical_terms, is_generic, is_number

SAME_SUBJECT = 0.75  # a statement of the rule says at least this share of what the best one says
MIN_SHARED_TERMS = 2  # and the best one shares at least this many of the claim's words

Weight = Callable[[str], float]
# Whether two sentences, each given with its chunk id, state one thing with different facts.
Restates = Callable[[tuple[str, str], tuple[str, str]], bool]


@dataclass
class Rule:
    """What a claim says one quantity of a rule now is, and how to recognise its statements."""

    kind: str  # the value kind (governance.contradictions: percent, amount, week_number, count:…)
    new: str  # the claimed value, normalised ("60")
    new_text: str  # as the claim writes it ("60%")
    old: str = ""  # the value the library states ("75"); "" when no statement was found
    old_text: str = ""
    also: list[str] = field(default_factory=list)  # other values the library states the same rule with
    terms: dict[str, float] = field(default_factory=dict)  # the claim's subject words and their weights
    min_score: float = 0.0  # a sentence scoring at least this speaks of the same subject

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Rule:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})

    def score(self, sentence: str, heading: str = "") -> float:
        """The weighted share of the claim's subject words that `sentence` (under `heading`) says."""
        return self.share(set(canonical_terms(sentence)) | set(canonical_terms(heading)))

    def share(self, said: set[str] | frozenset[str]) -> float:
        """The weighted share of the claim's subject words among the words `said`."""
        total = sum(self.terms.values())
        return sum(w for t, w in self.terms.items() if t in said) / total if total else 0.0

    def states_old(self, sentence: str, heading: str = "") -> list[Value]:
        """The old value's occurrences in `sentence`, when it speaks of the rule's subject."""
        if not self.old:
            return []
        held = [v for v in extract_values(sentence) if v.kind == self.kind and v.value in self.olds]
        return held if held and self.score(sentence, heading) >= self.min_score else []

    @property
    def olds(self) -> set[str]:
        return {self.old, *self.also} if self.old else set()

    def states_new(self, text: str) -> bool:
        return any(v.kind == self.kind and v.value == self.new for v in extract_values(text))


@dataclass(frozen=True)
class _Candidate:
    node: TextNode
    sentence: str
    start: int  # the sentence's offset in the chunk text
    value: Value  # offsets within the chunk text
    score: float
    shared: int


def subject_terms(statement: str, cue: str, values: list[Value], weight: Weight) -> dict[str, float]:
    """The claim's words that name its subject: no change cue ("changed to", "now"), no value,
    nothing that says when ("last month")."""
    dropped = set(canonical_terms(cue)) | {t for v in values for t in canonical_terms(v.text)}
    terms: dict[str, float] = {}
    for term in canonical_terms(without_when(statement)):
        if term not in dropped and not is_number(term):
            terms[term] = weight(term) * (0.4 if is_generic(term) else 1.0)
    return terms


@functools.lru_cache(maxsize=65536)  # chunk texts recur across claims; a chunk id names its content
def _read(text: str, heading: str) -> tuple[tuple[int, str, tuple[Value, ...], frozenset[str]], ...]:
    """Each sentence of a chunk with a value: its offset, text, values and words (heading's too)."""
    read = []
    heading_terms = set(canonical_terms(heading))
    for start, _, sentence in _sentence_spans(text):
        values = tuple(extract_values(sentence))
        if values:
            read.append((start, sentence, values, frozenset(set(canonical_terms(sentence)) | heading_terms)))
    return tuple(read)


glossary.on_change(_read.cache_clear)  # values and words are read with the glossary in use


def _candidates(nodes: list[TextNode], kind: str, terms: dict[str, float]) -> list[_Candidate]:
    probe = Rule(kind, "", "", terms=terms)
    found = []
    for node in nodes:
        for start, sentence, all_values, said in _read(node.get_content(), str(node.metadata.get("section", ""))):
            values = [v for v in all_values if v.kind == kind]
            if not values:
                continue
            shared = sum(1 for t in terms if t in said)
            score = probe.share(said)
            for v in values:
                at = Value(
                    v.kind,
                    v.value,
                    v.text,
                    v.start + start,
                    v.end + start,
                    v.num_start + start,
                    v.num_end + start,
                )
                found.append(_Candidate(node, sentence, start, at, score, shared))
    return found


def _number(value: str) -> float | None:
    try:
        return float(value)
    except ValueError:
        return None


def _dependent_reason(value: Value, rule: Rule) -> tuple[str, bool]:
    """Why a related value needs the reviewer's eye, and whether the new value crosses it."""
    dep, old, new = _number(value.value), _number(rule.old), _number(rule.new)
    if dep is not None and old is not None and new is not None and (dep < old) != (dep < new):
        side = ("below", "above") if dep < old else ("above", "below")
        return (
            f"{value.text} lay {side[0]} the old {rule.old_text} and lies {side[1]} the new {rule.new_text}: "
            "this no longer makes sense beside it; edit it",
            True,
        )
    return f"states a related {value.text}: check that it still holds with {rule.new_text}", False


def find_rule_statements(
    statement: str, cue: str, nodes: list[TextNode], weight: Weight, restates: Restates | None = None
) -> tuple[list[Rule], list[Contradiction], list[dict]]:
    """For each value the claim states: the rule, every statement of it in `nodes` (as
    contradictions with a proposed replacement), and the dependent statements to flag.

    A library that already disagrees with itself (2 remote days in one policy, 3 in another)
    states the rule with two values; `restates` finds the sentences that restate a statement of
    the old value with another one, and those are statements of the rule too."""
    claimed = extract_values(statement)
    terms = subject_terms(statement, cue, claimed, weight)
    rules: list[Rule] = []
    contradictions: list[Contradiction] = []
    dependents: list[dict] = []
    for value in claimed:
        candidates = [c for c in _candidates(nodes, value.kind, terms) if c.value.value != value.value]
        if not candidates:
            continue
        best = max(c.score for c in candidates)
        top = [c for c in candidates if c.score >= best - 1e-9]
        if best <= 0 or max(c.shared for c in top) < MIN_SHARED_TERMS:
            continue  # such values exist, but about something else
        counts = Counter(c.value.value for c in top)
        old = max(counts, key=lambda v: (counts[v], -min(c.value.start - c.start for c in top if c.value.value == v)))
        old_text = next(c.value.text for c in top if c.value.value == old)
        rule = Rule(
            value.kind, value.value, value.text, old, old_text, terms=terms, min_score=round(SAME_SUBJECT * best, 6)
        )
        rules.append(rule)
        about = [c for c in candidates if c.score >= rule.min_score]
        stating = [c for c in about if c.value.value == old]
        if restates is not None:
            said = list(dict.fromkeys((c.node.node_id, c.sentence) for c in stating))
            others = [
                c
                for c in about
                if c.value.value != old and any(restates(s, (c.node.node_id, c.sentence)) for s in said)
            ]
            rule.also = sorted({c.value.value for c in others})
            stating += others
        stating.sort(key=lambda c: -c.score)
        chunks = {c.node.node_id for c in stating}
        for c in stating:
            contradictions.append(
                Contradiction(
                    kind=value.kind,
                    chunk_id=c.node.node_id,
                    section=str(c.node.metadata.get("section", "")),
                    claim_span={"text": value.text, "start": value.start, "end": value.end},
                    chunk_span={"text": c.value.text, "start": c.value.start, "end": c.value.end},
                    claim_value=value.value,
                    chunk_value=c.value.value,
                    replacement=_render(c.value, value, c.node.get_content()),
                    score=c.shared,
                )
            )
        stated = {(c.node.node_id, c.value.start) for c in stating}
        for c in candidates:
            if c.node.node_id not in chunks or (c.node.node_id, c.value.start) in stated:
                continue
            if c.value.value in rule.olds:  # the old value in the same section, about something else
                reason, crosses = f"also says {c.value.text}: check whether it changes with {rule.new_text}", False
            elif c.score >= rule.min_score:
                reason, crosses = _dependent_reason(c.value, rule)
            else:
                continue
            dependents.append(
                {
                    "chunk_id": c.node.node_id,
                    "title": str(c.node.metadata.get("title", "")),
                    "section": str(c.node.metadata.get("section", "")),
                    "sentence": c.sentence,
                    "value": c.value.text,
                    "reason": reason,
                    "no_longer_fits": crosses,
                }
            )
    return rules, contradictions, dependents


def still_stating_old(rules: list[Rule], nodes: list[TextNode], kept: Collection[str] = ()) -> list[dict]:
    """The active chunks (not among `kept`) that still state a rule's old value for its subject."""
    left = []
    for node in nodes:
        if node.node_id in kept:
            continue
        heading = str(node.metadata.get("section", ""))
        for _, sentence, values, said in _read(node.get_content(), heading):
            for rule in rules:
                held = [v for v in values if v.kind == rule.kind and v.value in rule.olds]
                if held and rule.share(said) >= rule.min_score:
                    left.append(
                        {
                            "chunk_id": node.node_id,
                            "title": str(node.metadata.get("title", "")),
                            "section": heading,
                            "sentence": sentence,
                            "value": held[0].text,
                        }
                    )
    return left
