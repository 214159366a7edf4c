import json
import re

from pipeline.ground.records import AnswerStyle


def test_answer_cites_every_sentence(tiny_engine):
    answer = tiny_engine.ask("What is the revaluation fee?")
    assert answer.decision == "answer", answer.reason
    assert "Rs. 500" in answer.text
    sentences = [s for s in re.split(r"(?<=\])\s+", answer.text) if s.strip()]
    assert sentences and all(re.search(r"\[\d+\]$", s) for s in sentences)
    assert {c.n for c in answer.citations} == {int(n) for n in re.findall(r"\[(\d+)\]", answer.text)}
    assert answer.citations[0].doc_id == "fees" and answer.citations[0].section == "2. Revaluation Fee"
    assert answer.support.sigma >= answer.support.tau


def test_abstains_on_uncovered_question_and_names_what_it_searched(tiny_engine):
    answer = tiny_engine.ask("What is the hostel mess menu on Sundays?")
    assert answer.decision == "abstain"
    assert answer.citations == []
    assert "do not cover" in answer.text and "I looked at" in answer.text
    assert answer.support.sigma < answer.support.tau
    assert answer.nearest_sections


def test_abstains_when_key_term_missing(tiny_engine):
    answered = tiny_engine.ask("What is the fee for a photocopy of an answer script?")
    missing = tiny_engine.ask("What is the fee for a photocopy of a PhD thesis dissertation?")
    assert answered.support.coverage > missing.support.coverage


def test_bullets_and_brief_shape_only_the_form(tiny_engine):
    standard = tiny_engine.ask("What is the revaluation fee and when do I apply?")
    bullets = tiny_engine.ask(
        "What is the revaluation fee and when do I apply?", AnswerStyle(format="bullets", length="brief")
    )
    assert bullets.text.startswith("- ")
    assert len(bullets.text.splitlines()) <= len(re.findall(r"\[\d\]", standard.text))
    assert bullets.support == standard.support


def test_refuses_empty_and_huge_input_with_a_message(tiny_engine):
    assert "Please type a question" in tiny_engine.ask("   ").text
    huge = tiny_engine.ask("fee? " * 1000)
    assert huge.decision == "abstain" and "characters" in huge.text


def test_every_turn_is_appended_to_the_query_log(tiny_engine):
    tiny_engine.ask("What is the revaluation fee?", actor="u1", session="s1")
    tiny_engine.ask("What is the overdue fine?", actor="u1", session="s1")
    lines = tiny_engine.config.query_log_path.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == 2 and records[0]["actor"] == "u1"
    assert {"sigma", "sim", "coverage", "consistency", "tau", "decision", "sources", "timings_ms"} <= records[0].keys()
