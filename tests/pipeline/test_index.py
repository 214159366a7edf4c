from pipeline.engine import AnswerEngine
from pipeline.ground.config import load_config
from tests.conftest import run_module


def test_reingest_of_unchanged_corpus_embeds_nothing(tiny_engine, tiny_docs):
    before = tiny_engine.index.count()
    report = tiny_engine.ingest(tiny_docs)
    assert report.chunks_added == 0 and report.chunks_removed == 0
    assert report.chunks_unchanged == before == tiny_engine.index.count()


def test_changed_document_replaces_only_its_changed_chunks(tiny_engine, tiny_docs):
    ids_before = {n.node_id for n in tiny_engine.index.get_nodes(where={"doc_id": "fees"})}
    path = tiny_docs / "fees.md"
    path.write_text(path.read_text().replace("Rs. 300 per course", "Rs. 350 per course"))
    report = tiny_engine.ingest(tiny_docs)
    assert (report.chunks_added, report.chunks_removed) == (1, 1)
    ids_after = {n.node_id for n in tiny_engine.index.get_nodes(where={"doc_id": "fees"})}
    assert len(ids_before & ids_after) == len(ids_before) - 1
    assert "Rs. 350" in tiny_engine.ask("How much is the photocopy fee for an answer script?").text


def test_metadata_and_status_filter(tiny_engine):
    nodes = tiny_engine.index.get_nodes(where={"doc_id": "fees"})
    meta = nodes[0].metadata
    assert {"doc_id", "title", "section", "version", "effective_date", "status"} <= meta.keys()
    assert all(n.metadata["status"] == "active" for n in nodes)
    target = next(n for n in nodes if "Revaluation" in n.metadata["section"])
    tiny_engine.index.update_metadata([target.node_id], status="deprecated")
    reread = tiny_engine.index.get_nodes([target.node_id])[0]
    assert reread.metadata["status"] == "deprecated"  # the JSON copy changed too, not only the filter
    answer = tiny_engine.ask("What is the revaluation fee?")
    assert target.node_id not in {c.chunk_id for c in answer.citations}


def test_index_survives_a_process_restart(tiny_engine, embed_model):
    home = tiny_engine.config.home
    count = tiny_engine.index.count()
    reopened = AnswerEngine(load_config().with_home(home), embed_model=embed_model)
    assert reopened.index.count() == count
    result = run_module("pipeline", "ask", "What is the revaluation fee?", home=home, timeout=240)
    assert result.returncode == 0, result.stderr
    assert "Rs. 500" in result.stdout and "decision: answer" in result.stdout
    assert "ingesting" not in result.stderr  # it used the persisted index


def test_active_retrieval_matches_the_filtered_search_with_or_without_fallback(tiny_engine, monkeypatch):
    from llama_index.core.schema import QueryBundle

    import pipeline.ingest.index as index_module

    nodes = tiny_engine.index.get_nodes(where={"doc_id": "fees"})
    tiny_engine.index.update_metadata([nodes[0].node_id], status="deprecated")
    query = QueryBundle(
        "What is the revaluation fee?",
        embedding=tiny_engine.embed_model.get_query_embedding("What is the revaluation fee?"),
    )
    expected = [n.node.node_id for n in tiny_engine.index.filtered_retriever(3).retrieve(query)]
    assert [n.node.node_id for n in tiny_engine.index.retriever(3).retrieve(query)] == expected
    monkeypatch.setattr(index_module, "MAX_OVERFETCH", 0)  # too many deprecated: filtered search
    assert [n.node.node_id for n in tiny_engine.index.retriever(3).retrieve(query)] == expected
    assert nodes[0].node_id not in expected
