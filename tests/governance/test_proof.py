"""Uploads are checked by name, size and content, and stored under a generated name."""

from __future__ import annotations

import io

import pytest

from governance.proof import MAX_PROOF_BYTES, ProofRefused, store_proof

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def _pdf(text: str) -> bytes:
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    page = writer.add_blank_page(width=300, height=200)
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})}
    )
    stream = DecodedStreamObject()
    stream.set_data(f"BT /F1 10 Tf 10 100 Td ({text}) Tj ET".encode("latin-1"))
    page[NameObject("/Contents")] = writer._add_object(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_text_proof_is_stored_with_a_generated_name(tmp_path):
    stored = store_proof(b"Circular: the revaluation fee is Rs. 800.", "notice.txt", tmp_path)
    assert stored.stored_name != "notice.txt" and stored.stored_name.endswith(".txt")
    assert (tmp_path / stored.stored_name).read_bytes().startswith(b"Circular")
    assert "Rs. 800" in stored.text and stored.kind == "text"


def test_pdf_text_is_extracted(tmp_path):
    stored = store_proof(_pdf("The revaluation fee is Rs. 800 per course"), "circular.pdf", tmp_path)
    assert stored.kind == "pdf" and "Rs. 800" in stored.text


def test_png_is_accepted_without_text(tmp_path):
    stored = store_proof(PNG, "photo.png", tmp_path)
    assert stored.kind == "png" and stored.text == ""


@pytest.mark.parametrize(
    "name", ["../../etc/passwd.txt", "sub/notice.txt", "..\\notice.txt", ".hidden.txt", "C:notice.txt"]
)
def test_path_like_names_are_refused(tmp_path, name):
    with pytest.raises(ProofRefused, match="path"):
        store_proof(b"hello", name, tmp_path)
    assert not any(tmp_path.rglob("*"))


def test_oversize_file_is_refused(tmp_path):
    with pytest.raises(ProofRefused, match="5 MB"):
        store_proof(b"a" * (MAX_PROOF_BYTES + 1), "big.txt", tmp_path)
    assert not any(tmp_path.rglob("*"))


@pytest.mark.parametrize(
    "data,name",
    [
        (PNG, "circular.pdf"),  # a picture renamed to .pdf
        (b"%PDF-1.4 fake", "notice.png"),  # a PDF renamed to .png
        (b"MZ\x90\x00\x03\x00\x00\x00binary", "notice.txt"),  # a program renamed to .txt
    ],
)
def test_content_that_does_not_match_the_extension_is_refused(tmp_path, data, name):
    with pytest.raises(ProofRefused, match="not a"):
        store_proof(data, name, tmp_path)


@pytest.mark.parametrize("name", ["run.exe", "page.html", "noextension"])
def test_unsupported_types_are_refused(tmp_path, name):
    with pytest.raises(ProofRefused, match="not accepted"):
        store_proof(b"hello", name, tmp_path)


def test_a_pdf_too_costly_to_read_is_refused_at_once_and_nothing_is_stored(tmp_path):
    """Issue 27, finding 3: 1.4 KB whose pages draw one form XObject 400 times each (a minute of
    pypdf before); its drawing operations are counted first, in a child process."""
    import time

    from tests.documents_fixtures import make_xobject_bomb

    bomb = make_xobject_bomb(pages=4, draws=400, ops=1000)
    assert len(bomb) < 2000
    started = time.monotonic()
    with pytest.raises(ProofRefused, match="too complex to read"):
        store_proof(bomb, "circular.pdf", tmp_path / "proofs")
    assert time.monotonic() - started < 10  # the child is killed at 10 s in any case
    assert not (tmp_path / "proofs").exists() or list((tmp_path / "proofs").iterdir()) == []


def test_reading_a_pdf_past_its_budget_is_stopped_with_a_plain_message():
    from dataclasses import replace

    from pipeline.ingest.pdf_layout import pdf_text
    from pipeline.ingest.pdf_reader import PROOF_LIMITS, PdfRefused

    with pytest.raises(PdfRefused, match="took longer than"):
        pdf_text(_pdf("The revaluation fee is Rs. 800 per course"), replace(PROOF_LIMITS, budget_s=0.001))


def test_a_pdf_drawing_itself_is_refused():
    from pipeline.ingest.pdf_layout import pdf_text
    from pipeline.ingest.pdf_reader import PdfRefused
    from tests.documents_fixtures import make_xobject_bomb

    looped = make_xobject_bomb(pages=1, draws=1, ops=1, form=b"q /X0 Do Q", form_xobjects=b"/XObject << /X0 4 0 R >>")
    with pytest.raises(PdfRefused, match="inside itself"):
        pdf_text(looped)
