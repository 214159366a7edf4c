"""The glossary: a corpus's own words come from the file beside its documents, or not at all."""

from dataclasses import replace
from pathlib import Path

import pytest

from governance.contradictions import extract_values
from pipeline.language import glossary
from pipeline.language.glossary import Glossary, GlossaryError
from pipeline.language.text import (
    canonical_terms,
    corpus_unit_kinds,
    first_named,
    is_generic,
    money_words,
    named_in,
    quantities,
    split_sentences,
)

TINY = """\
synonyms:
  holiday: [vacation, leave]
generic_terms: [employee]
named_groups:
  grades:
    senior: [sr.]
  teams:
    IT: [information technology]
currency: [EUR, €, euros]
money_words: [reimbursement]
abbreviations: [Dept]
offices: [Payroll Section]
"""


@pytest.fixture()
def active():
    """Restore whatever glossary was in use when the test ends."""
    before = glossary.active()
    yield glossary.use
    glossary.use(before)


def test_a_corpus_without_a_glossary_gets_no_synonyms(tmp_path: Path, active):
    empty = Glossary.load(tmp_path)
    active(empty)
    assert empty.source is None and not empty.synonyms
    assert canonical_terms("How much vacation do I get?") != canonical_terms("How much holiday do I get?")
    assert canonical_terms("recheck") != canonical_terms("revaluation")
    assert not is_generic("student")
    assert named_in("For B.Tech students") == frozenset()
    assert quantities("Rs. 500") == {"n:500"}
    assert quantities("$500") == {"money:500"}  # the dollar sign is English, not a corpus's
    assert quantities("3 credits within 7 working days") == {"n:3", "day:7"}  # credits are a corpus's unit
    assert corpus_unit_kinds("count") == corpus_unit_kinds("time") == frozenset()


def test_a_corpus_with_a_tiny_glossary_gets_its_words(tmp_path: Path, active):
    (tmp_path / "glossary.yaml").write_text(TINY, encoding="utf-8")
    active(Glossary.load(tmp_path))
    assert canonical_terms("How much vacation do I get?") == canonical_terms("How much holiday do I get?")
    assert canonical_terms("Can I take leave?") == canonical_terms("Can I take holidays?")
    assert is_generic(canonical_terms("employees")[0])
    assert named_in("Sr. engineers and seniors") == {"senior"}
    assert first_named("As a Sr. engineer, may I", "grades") == ("senior", "Sr.")
    assert quantities("EUR 40 or €40 or 40 euros") == {"money:40"}
    assert "reimbursement" in money_words() and "euros" in money_words()
    assert split_sentences("Ask the Dept. Office. Then wait.") == ["Ask the Dept. Office.", "Then wait."]
    assert named_in("IT staff and information technology") == {"IT"}
    assert named_in("ask it, then leave it") == frozenset()  # an acronym that is an English word: as written
    assert extract_values("a fee of EUR 40, or 50 euros") and {
        v.value for v in extract_values("EUR 40 or 50 euros")
    } == {"40", "50"}
    assert "section" not in canonical_terms("the payroll  section decides")  # an office: one word
    assert "section" in canonical_terms("Which section of the form is mine?")
    active(Glossary.load(tmp_path / "nowhere"))
    assert "section" in canonical_terms("the payroll section decides")  # another corpus: just words


def test_the_engine_uses_its_documents_glossary_and_no_other(tmp_path: Path, active, tiny_docs, embed_model):
    from pipeline.engine import AnswerEngine
    from pipeline.ground.config import load_config

    config = load_config()
    AnswerEngine(config.with_home(tmp_path / "a"), embed_model=embed_model)
    assert glossary.active().source == config.docs_dir / "glossary.yaml"
    assert canonical_terms("recheck") == canonical_terms("revaluation")
    AnswerEngine(replace(config.with_home(tmp_path / "b"), docs_dir=tiny_docs), embed_model=embed_model)
    assert glossary.active().source is None
    assert canonical_terms("recheck") != canonical_terms("revaluation")


@pytest.mark.parametrize(
    "text, message",
    [
        ("synonyms: [a, b]\n", "synonyms: expected a mapping"),
        ("synonyms:\n  fee: [cost]\n  price: [cost]\n", "'cost' is listed under both 'fee' and 'price'"),
        ("currency: {a: 1}\n", "currency: expected a list of words"),
        ("colours: [red]\n", "unknown key(s) colours"),
        ("synonyms:\n  leave: [annual leave]\n", "'annual leave' is not one word"),
        ("synonyms: {fee: [cost\n", "cannot be read as YAML"),
        ("- just\n- a list\n", "expected a mapping with keys"),
        # the wording and official-source keys name the key, too
        ("subject: [a, b]\n", "subject: expected a phrase"),
        ('subject: ""\n', "subject: expected a phrase"),
        ('subject: "the\\npolicies"\n', "subject: 'the\\npolicies' must be one line"),
        (f"contact: {'x' * 121}\n", "contact: 121 characters long; at most 120"),
        ("topics: {exams: 1}\n", "topics: expected a list of phrases"),
        ("topics: [exams, 3]\n", "topics: expected a phrase"),
        ('official_sources: ["board of\\nstudies"]\n', "official_sources: 'board of\\nstudies' must be one line"),
        ("official_domains: [https://ac.in]\n", "official_domains: 'https://ac.in' is not a domain suffix"),
        ("official_domains: [ac in]\n", "official_domains: 'ac in' is not a domain suffix"),
        ("count_units: [credit hours]\n", "count_units: 'credit hours' is not one word"),
        ("time_units: {term: 1}\n", "time_units: expected a list of words"),
        ("counts_as: [advisee]\n", "counts_as: expected a mapping"),
        ("counts_as: {advisee: faculty member}\n", "counts_as.advisee: 'faculty member' is not one word"),
    ],
)
def test_a_malformed_glossary_is_refused_naming_the_file(tmp_path: Path, text: str, message: str):
    (tmp_path / "glossary.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(GlossaryError) as error:
        Glossary.load(tmp_path)
    assert str(tmp_path / "glossary.yaml") in str(error.value) and message in str(error.value)


def test_words_that_stem_alike_under_two_canonical_words_are_refused(tmp_path: Path):
    (tmp_path / "glossary.yaml").write_text("synonyms:\n  fee: [charges]\n  cost: [charged]\n", encoding="utf-8")
    with pytest.raises(GlossaryError, match="stem alike"):
        Glossary.load(tmp_path)


def test_the_demo_glossary_loads(active):
    demo = Glossary.load(Path(__file__).resolve().parents[2] / "data" / "policies")
    active(demo)
    assert canonical_terms("re-evaluation fee") == canonical_terms("revaluation cost")
    assert quantities("Rs. 2,000") == {"money:2000"}
    assert named_in("For M.Tech and MCA students") == {"M.Tech", "MCA", "student"}
    assert quantities("3 credits in semester 2 and 1 withdrawal") == {"credit:3", "n:2", "withdrawal:1"}
    assert quantities("2 semesters") == {"semester:2"}
    assert corpus_unit_kinds("count") == {"credit", "mark", "student", "course", "withdrawal"}
    assert corpus_unit_kinds("time") == {"semester"}


DEMO_TEXTS = {
    "please_ask": "Please type a question about the academic policies.",
    "greeting": "Hello! Ask me about the academic policies - add/drop, exams, revaluation, internships, "
    "projects - and I'll answer with citations.",
    "action_refusal": "I can't do that: in this chat I only answer questions from the policies, with citations. "
    "I can't approve or reject tickets, change records, or grant exceptions. Policy-change tickets are "
    "decided by reviewers in the Review tab; for your own case, ask your faculty advisor or the office named in "
    "the policy.",
    "instructions_only": "Your message gives me instructions rather than asking about a policy. I don't follow "
    "instructions in chat messages; I answer questions about the academic policies, citing them. What would you "
    "like to know?",
    "login": "Answers about the academic policies, cited or silent.",
}


def _texts(active) -> dict[str, str]:
    """What the assistant says about its corpus, with the glossary `active` put in use."""
    from pipeline.engine import please_ask
    from pipeline.language.instructions import action_refusal, instructions_only
    from ui.login import login_page
    from ui.service import greeting

    login = next(line for line in login_page().splitlines() if "cited or silent" in line)
    return {
        "please_ask": please_ask(),
        "greeting": greeting(),
        "action_refusal": action_refusal(),
        "instructions_only": instructions_only(),
        "login": login.removeprefix('<div class="muted">').removesuffix("</div>"),
    }


def test_the_demo_glossary_gives_the_demo_wording(active):
    active(Glossary.load(Path(__file__).resolve().parents[2] / "data" / "policies"))
    assert _texts(active) == DEMO_TEXTS


def test_a_folder_without_a_glossary_gets_neutral_wording(tmp_path: Path, active):
    active(Glossary.load(tmp_path))
    texts = _texts(active)
    assert texts["please_ask"] == "Please type a question about the policies."
    assert texts["greeting"] == "Hello! Ask me about the policies and I'll answer with citations."
    assert texts["action_refusal"].endswith("for your own case, ask the office named in the policy.")
    for text in texts.values():
        assert "academic" not in text.lower() and "faculty" not in text.lower()


def test_glossary_wording_is_shown_as_text_on_the_login_page(tmp_path: Path, active):
    (tmp_path / "glossary.yaml").write_text('subject: "the <b>HR</b> & pay rules"\n', encoding="utf-8")
    active(Glossary.load(tmp_path))
    assert _texts(active)["login"] == "Answers about the &lt;b&gt;HR&lt;/b&gt; &amp; pay rules, cited or silent."


def test_a_when_question_looks_for_the_glossarys_time_unit(tmp_path: Path, active):
    """A brief answer keeps the sentence that states the period a "when" question asks for only when
    the glossary names that period: the code knows no corpus's calendar."""
    from llama_index.core.schema import NodeWithScore, TextNode

    from pipeline.answer.synthesis import ExtractiveSynthesizer
    from pipeline.ground.records import AnswerStyle
    from pipeline.ingest.term_stats import TermStats

    texts = [  # the same words in each: the number's unit decides
        "The laptop loan ends at counter 3.",
        "The laptop loan ends at counter 4.",
        "The laptop loan ends after 2 terms.",
    ]
    nodes = [NodeWithScore(node=TextNode(text=t, id_=f"c{i}"), score=0.6) for i, t in enumerate(texts)]

    def brief_answer() -> list[str]:
        synthesizer = ExtractiveSynthesizer(TermStats(texts))
        chosen = synthesizer.select("When does the laptop loan end?", nodes, AnswerStyle(length="brief"))
        return [s.text for s in chosen]

    active(Glossary.load(tmp_path))
    assert brief_answer() == texts[:2]  # "2 terms" is a bare 2, like "counter 3"
    (tmp_path / "glossary.yaml").write_text("time_units: [term]\n", encoding="utf-8")
    active(Glossary.load(tmp_path))
    assert texts[2] in brief_answer()
