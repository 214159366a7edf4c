from pipeline.chunking import audit_chunks, chunk_document
from pipeline.documents import read_document
from tests.conftest import TINY_FEES


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
        "fees", "Examination Fees Policy", "1.0", "2026-07-01")
    assert chunk.owner == "Office of the Controller of Examinations"


def test_tiny_sections_are_merged_and_long_ones_split(tmp_path):
    tiny = "# T\n\n## 1. A\nOne short line.\n\n## 1.1 B\nAnother short line here.\n\n## 2. C\n" + (
        "\n\n".join(" ".join(["word"] * 120) for _ in range(4)))
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
