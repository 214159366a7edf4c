from pipeline.ingest.chunking import audit_chunks, chunk_document
from pipeline.ingest.documents import read_document
from tests.conftest import TINY_FEES, engine_over


def _doc(tmp_path, text, name="fees.md"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return read_document(path, tmp_path)


def test_chunk_ids_are_stable_across_runs(tmp_path):
    first = [c.chunk_id for c in chunk_document(_doc(tmp_path, TINY_FEES))]
    second = [c.chunk_id for c in chunk_document(_doc(tmp_path, TINY_FEES))]
    assert first == second
    assert all(cid.count("::") == 2 and cid.startswith("fees::") for cid in first)


def test_chunk_id_changes_only_for_the_changed_section(tmp_path):
    before = {c.section: c.chunk_id for c in chunk_document(_doc(tmp_path, TINY_FEES))}
    changed = TINY_FEES.replace("Rs. 300 per course", "Rs. 350 per course")
    after = {c.section: c.chunk_id for c in chunk_document(_doc(tmp_path, changed))}
    assert before.keys() == after.keys()
    differing = [s for s in before if before[s] != after[s]]
    assert differing == ["3. Photocopy Fee"]


def test_front_matter_becomes_metadata(tmp_path):
    chunk = chunk_document(_doc(tmp_path, TINY_FEES))[0]
    assert (chunk.doc_id, chunk.title, chunk.version, chunk.effective_date) == (
        "fees",
        "Examination Fees Policy",
        "1.0",
        "2026-07-01",
    )
    assert chunk.owner == "Office of the Controller of Examinations"


def test_tiny_sections_are_merged_and_long_ones_split(tmp_path):
    tiny = "# T\n\n## 1. A\nOne short line.\n\n## 1.1 B\nAnother short line here.\n\n## 2. C\n" + (
        "\n\n".join(" ".join(["word"] * 120) for _ in range(4))
    )
    chunks = chunk_document(_doc(tmp_path, tiny, "t.md"), min_words=20, max_words=300)
    assert chunks[0].section_numbers == "1,1.1"  # merged: both too short alone
    long_parts = [c for c in chunks if c.section == "2. C"]
    assert len(long_parts) == 2 and all(len(c.text.split()) <= 300 for c in long_parts)
    assert len({c.chunk_id for c in chunks}) == len(chunks)


def test_plain_text_is_split_on_blank_lines(tmp_path):
    text = "\n\n".join(f"Paragraph {i} " + "text " * 50 for i in range(3))
    chunks = chunk_document(_doc(tmp_path, text, "notes.txt"))
    assert len(chunks) == 3
    assert chunks[0].doc_id == "notes" and chunks[0].source == "notes.txt"
    assert any(i.problem == "no heading" for i in audit_chunks(chunks))


def test_audit_flags_short_chunks(tmp_path):
    chunks = chunk_document(_doc(tmp_path, "# T\n\n## 1. Only\nToo short.\n", "s.md"))
    assert any(i.problem.startswith("too short") for i in audit_chunks(chunks))


def test_a_plain_text_faq_is_chunked_one_entry_a_chunk_under_its_question(tmp_path):
    from tests.pipeline.tiny_corpora import PASSPORT_FAQ

    chunks = chunk_document(_doc(tmp_path, PASSPORT_FAQ, "passport-faq.txt"))
    entries = {c.section: c.text for c in chunks}
    assert entries["How long does a renewal take?"] == "Routine renewals are returned within six to eight weeks."
    assert entries["Who can sign my photo?"].startswith("A person who has known you")
    assert len(chunks) == 6  # the opening line, then five entries
    assert not any("?" in c.text for c in chunks)  # no answer runs on into the next question


def test_a_markdown_faq_with_bold_questions_gets_one_chunk_per_entry(tmp_path):
    faq = "# Parking\n\n## Permits\n\n" + "\n\n".join(
        f"**Q: Question number {i} about permits?**\nA: Answer {i} about permits." for i in range(3)
    )
    chunks = chunk_document(_doc(tmp_path, faq, "parking.md"))
    assert [c.section for c in chunks] == [f"Question number {i} about permits?" for i in range(3)]
    assert chunks[1].text == "Answer 1 about permits."


def test_rhetorical_questions_and_question_lists_are_not_a_faq(tmp_path):
    prose = (
        "# Leave\n\n## Carry-over\n\nWhat happens to unused leave?\n\nIt is carried over up to 240 hours.\n\n"
        "Why?\n\nTo keep leave available for emergencies.\n\n## Reporting\n\nAnswer these questions:\n\n"
        "1. What systems were exposed?\n2. How long were they exposed?\n3. Who had access?\n"
    )
    chunks = chunk_document(_doc(tmp_path, prose, "leave.md"))
    assert [c.section for c in chunks] == ["Carry-over", "Reporting"]


def test_a_faq_answer_is_cited_under_its_own_question(tmp_path, embed_model):
    """Merged by word count, the renewal-time answer sat in another chunk than its question, and the
    engine answered with the questions themselves; one entry a chunk, it answers with the answer."""
    from tests.pipeline.tiny_corpora import PASSPORT_FAQ

    engine = engine_over(tmp_path, embed_model, {"passport-faq.txt": PASSPORT_FAQ})
    answer = engine.ask("How long will it take to get my renewed passport back?", log=False)
    assert answer.decision == "answer"
    assert "within six to eight weeks. [1]" in answer.text
    assert "?" not in answer.text
    assert answer.citations[0].chunk_id.startswith("passport-faq::how-long-does-a-renewal-take::")


def test_q_and_a_labels_are_read_as_a_faq_and_left_out_of_the_text(tmp_path):
    faq = "Q: How do I pay?\n\nA: By card.\n\nQ: When?\n\nAnswer: Before the 5th of each month.\n\nQ: Where?\nA: To the office.\n"
    chunks = chunk_document(_doc(tmp_path, faq, "fees-faq.txt"))
    assert [(c.section, c.text) for c in chunks] == [
        ("How do I pay?", "By card."),
        ("When?", "Before the 5th of each month."),
        ("Where?", "To the office."),
    ]


def test_a_markdown_table_is_written_out_a_row_a_sentence_after_its_headers(tmp_path):
    from pipeline.language.text import split_sentences
    from tests.pipeline.tiny_corpora import EXPENSE_LIMITS

    limits = chunk_document(_doc(tmp_path, EXPENSE_LIMITS, "expenses.md"))[0]
    assert "|" not in limits.text
    sentences = split_sentences(limits.text)
    assert "Expense: Hotel; Limit: 200 dollars per night; Receipt needed: Yes" in sentences
    assert sentences[-1] == "Expense: Taxi; Limit: 40 dollars per trip; Receipt needed: Yes"


def test_a_table_question_is_answered_with_its_row(tmp_path, embed_model):
    """Read whole, the table was one 'sentence' of pipes: 'Do I need a receipt for meals?' abstained
    (σ 0.47) and the hotel question quoted every row."""
    from tests.pipeline.tiny_corpora import EXPENSE_LIMITS

    engine = engine_over(tmp_path, embed_model, {"expenses.md": EXPENSE_LIMITS})
    meals = engine.ask("Do I need a receipt for meals?", log=False)
    assert meals.decision == "answer"
    # the row reads as a row (pipeline.answer.table_rows), led by the plain answer (pipeline.answer.direct)
    assert meals.text.startswith("No. Meals: 50 dollars per day, Receipt needed: No [1]")
    assert meals.citations[0].quote == "Expense: Meals; Limit: 50 dollars per day; Receipt needed: No"
    hotel = engine.ask("What is the hotel limit per night?", log=False)
    assert "Hotel: 200 dollars per night, Receipt needed: Yes" in hotel.text and "Taxi" not in hotel.text


def test_a_table_in_a_text_document_is_written_out_a_row_a_sentence_too(tmp_path):
    from pipeline.language.text import split_sentences

    table = "Loan limits by member.\n\n| Member | Items | Loan period |\n|---|---|---|\n| M.Tech student | 6 items | 21 days |\n"
    chunk = chunk_document(_doc(tmp_path, table, "loans.txt"))[0]
    assert "|" not in chunk.text
    assert "Member: M.Tech student; Items: 6 items; Loan period: 21 days" in split_sentences(chunk.text)


def test_a_faq_entry_whose_answer_is_one_short_sentence_is_answered_with_it(tmp_path, embed_model):
    """Read alone, "In zone C." is far from the question (σ's sim 0.27: abstained), and the synthesiser
    skipped it as a fragment under four words (answering "Up to four hours."). A one-sentence chunk
    is read with its heading, and is its own answer."""
    faq = (
        "Q: Where do visitors park?\nA: In zone C.\n\nQ: How long can visitors stay?\nA: Up to four hours.\n\n"
        "Q: Who issues day passes to visitors?\nA: The reception desk issues them.\n"
    )
    engine = engine_over(tmp_path, embed_model, {"parking-faq.txt": faq})
    answer = engine.ask("Where do visitors park?", log=False)
    assert answer.decision == "answer"
    assert answer.text == "In zone C. [1]"


def _paragraph(i: int, words: int = 60) -> str:
    return f"Paragraph {i} opens here. " + " ".join(f"word{i}x{j}" for j in range(words - 5)) + " ends here."


def test_text_written_one_paragraph_a_line_is_chunked_by_its_lines(tmp_path):
    """No blank line between paragraphs: the whole file was one chunk (embedded from its first ~200
    words only). Lines of paragraph length are chunked as blank-line paragraphs are."""
    lines = [_paragraph(i) for i in range(12)]
    one_a_line = chunk_document(_doc(tmp_path, "\n".join(lines), "article.txt"))
    blank_lines = chunk_document(_doc(tmp_path, "\n\n".join(lines), "article2.txt"))
    assert len(one_a_line) == 12
    assert [c.text for c in one_a_line] == [c.text for c in blank_lines]


def test_a_paragraph_over_the_limit_is_cut_between_sentences(tmp_path):
    sentences = [f"Sentence {i} says one thing about rule {i} and then stops." for i in range(54)]  # 594 words
    wrapped = "\n".join(" ".join(sentences[i : i + 2]) for i in range(0, 54, 2))  # hard-wrapped lines
    for name, body in (("rules.txt", wrapped), ("rules.md", "# Rules\n\n## All\n" + wrapped)):
        chunks = chunk_document(_doc(tmp_path, body, name))
        assert len(chunks) == 2 and all(len(c.text.split()) <= 320 for c in chunks), name
        assert all(c.text.rstrip().endswith("stops.") for c in chunks)  # no sentence cut in two


def test_a_numbered_faq_is_a_faq_and_a_numbered_list_of_questions_is_not(tmp_path):
    faq = "# Passport FAQ\n\n## General\n\n" + "\n\n".join(
        f"{i}. Question number {i} about passports?\n\nAnswer {i} about passports." for i in range(1, 4)
    )
    chunks = chunk_document(_doc(tmp_path, faq, "passport-faq.md"))
    assert [(c.section, c.text) for c in chunks] == [
        (f"Question number {i} about passports?", f"Answer {i} about passports.") for i in range(1, 4)
    ]
    questions = "# Incidents\n\n## Report\n\nAnswer these:\n\n" + "\n".join(
        f"{i}. What about item {i}?" for i in range(1, 6)
    )
    assert [c.section for c in chunk_document(_doc(tmp_path, questions, "incidents.md"))] == ["Report"]
