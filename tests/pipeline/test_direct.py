"""pipeline.answer.direct: the answer's first line states the value, name or yes/no asked, as a
span of a cited sentence with its marker, or there is no such line."""

from __future__ import annotations

from pipeline.answer.direct import arrange, cited_sentences, direct_answer, render_with_direct_answer
from pipeline.answer.synthesis import CitedSentence, ExtractiveSynthesizer
from pipeline.ground.records import AnswerStyle
from pipeline.language.question import analyse_question

FEE = CitedSentence("The revaluation fee is Rs. 500 per course.", 1, "rev")
REFUND = CitedSentence("The revaluation fee of Rs. 500 is refunded when the marks increase.", 1, "rev")
PHOTOCOPY = CitedSentence("The photocopy fee is Rs. 300 per course.", 2, "photo")
LATE = CitedSentence("A student may register late until the end of week 14 of the semester.", 1, "late")
SUMMER = CitedSentence("Late registration is not available for the summer term.", 2, "summer")
HOD = CitedSentence("A reduced credit load is approved by the HoD on the advice of the faculty advisor.", 1, "load")
LOAD = CitedSentence("For B.Tech students, the load is a minimum of 16 credits and a maximum of 26 credits.", 1, "c")


def lead(question: str, *sentences: CitedSentence) -> str:
    found = direct_answer(analyse_question(question), list(sentences))
    return found.line if found else ""


def test_a_value_question_leads_with_the_value_and_its_marker():
    assert lead("What is the revaluation fee?", FEE, REFUND, PHOTOCOPY) == "Rs. 500 per course [1]"
    assert lead("Until when can I register late?", LATE) == "Until the end of week 14 of the semester [1]"
    assert lead("How many credits can a B.Tech student take?", LOAD) == (
        "Minimum of 16 credits and a maximum of 26 credits [1]"
    )


def test_a_who_question_leads_with_the_name():
    assert lead("Who approves a reduced credit load?", HOD) == "The HoD [1]"


def test_a_yes_no_question_leads_with_no_when_the_sentence_denies_it_plainly():
    found = direct_answer(analyse_question("Is late registration available for the summer term?"), [LATE, SUMMER])
    assert found is not None and found.line == "No. Late registration is not available for the summer term. [2]"
    assert found.restates_whole


def test_a_sentence_is_read_with_its_heading_and_a_mere_mention_is_no_yes():
    question = analyse_question("Can I register late for exams for the summer term?")
    scope = CitedSentence(
        "It covers eligibility to register, late registration and summer term examinations.", 3, "scope"
    )
    assert direct_answer(question, [scope]) is None  # it names the topics, it grants nothing
    headings = {"summer": "Examination Registration Policy. 6.2 Summer Term Examinations"}
    found = direct_answer(question, [LATE, SUMMER, scope], headings=headings)
    assert found is not None and found.text == "No. Late registration is not available for the summer term."


def test_no_line_when_the_sentences_disagree_or_do_not_settle_it():
    other_fee = CitedSentence("The revaluation fee is Rs. 800 per course for backlog papers.", 2, "x")
    assert lead("What is the revaluation fee?", FEE, other_fee) == ""  # two fees: say neither
    # a condition ("only"), a limit the question did not ask, a relative clause: no plain yes/no
    only = CitedSentence("Revaluation is available only for theory examinations.", 1, "only")
    assert lead("Is revaluation available for lab examinations?", only) == ""
    team = CitedSentence("A B.Tech final-year project is carried out by a team of 2 to 4 students.", 1, "t")
    assert lead("Can I do my B.Tech final-year project on my own instead of in a team?", team) == ""
    # a question the sentences do not speak of, and one that asks two things
    assert lead("What is the hostel fee?", PHOTOCOPY) == ""
    assert lead("What is the revaluation fee and when is it due?", FEE) == ""
    # a question that asks for no value, name or yes/no
    assert lead("How do I apply for revaluation?", FEE) == ""


def test_relevance_picks_one_of_disagreeing_sentences_only_by_a_clear_margin():
    other = CitedSentence("The revaluation fee was Rs. 400 per course before 2020.", 2, "old")
    question = analyse_question("What is the revaluation fee?")
    picked = direct_answer(question, [other, FEE], relevance=[0.2, 0.9])
    assert picked is not None and picked.line == "Rs. 500 per course [1]"
    assert direct_answer(question, [other, FEE], relevance=[0.88, 0.9]) is None


def test_the_line_comes_first_then_the_cited_sentences_renumbered_in_reading_order():
    render = ExtractiveSynthesizer.render
    question = analyse_question("Is late registration available for the summer term?")
    found = direct_answer(question, [LATE, SUMMER])
    shown_lead, shown = arrange(found, [LATE, SUMMER], AnswerStyle())
    text = render_with_direct_answer(shown_lead, shown, AnswerStyle(), render)
    assert text == (
        "No. Late registration is not available for the summer term. [1]\n\n"
        "A student may register late until the end of week 14 of the semester. [2]"
    )  # the restated sentence is not repeated
    assert [s.chunk_id for s in cited_sentences(shown_lead, shown)] == ["summer", "late"]
    bullets = AnswerStyle(format="bullets", length="brief")
    fee = direct_answer(analyse_question("What is the revaluation fee?"), [FEE, REFUND])
    shown_lead, shown = arrange(fee, [FEE, REFUND], bullets)
    assert render_with_direct_answer(shown_lead, shown, bullets, render) == (
        "- Rs. 500 per course [1]\n- The revaluation fee is Rs. 500 per course. [1]"
    )  # brief: the line and the sentence it comes from


def test_the_engine_leads_with_a_line_the_verifier_accepts(tiny_engine):
    from pipeline.evaluation.golden import unsupported_sentences

    answer = tiny_engine.ask("What is the revaluation fee?")
    assert answer.decision == "answer"
    assert answer.text.startswith("Rs. 500 per course [1]\n\n")
    assert answer.direct_answer == "Rs. 500 per course [1]"
    texts = {n.node_id: n.get_content() for n in tiny_engine.index.get_nodes([c.chunk_id for c in answer.citations])}
    total, unsupported = unsupported_sentences(answer, texts)
    assert total >= 2 and unsupported == 0
    no = tiny_engine.ask("Can reference books be borrowed?")
    assert no.text.startswith("No. Reference books cannot be borrowed. [1]")


def test_a_value_line_does_not_end_inside_its_noun_phrase():
    appeal = CitedSentence(
        "A student may appeal within 5 working days of the revaluation outcome only on the ground of a procedural "
        "irregularity.",
        1,
        "appeal",
    )
    assert lead("How long do I have to appeal?", appeal) == "Within 5 working days of the revaluation outcome [1]"
