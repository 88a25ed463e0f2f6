"""The chunker port on the inputs where a naive port goes wrong (spec §7.5)."""

from __future__ import annotations

from itertools import pairwise

from blake3 import blake3

from rulelens.memory.chunker import Chunk, chunk_markdown, header_level


def spans(chunks: list[Chunk]) -> list[tuple[int, int]]:
    return [(c.start_line, c.end_line) for c in chunks]


def test_small_file_is_one_verbatim_chunk_with_trailing_newline() -> None:
    content = "# T\n\nbody\n"
    assert chunk_markdown(content) == [Chunk(0, 3, content)]


def test_empty_and_newline_only() -> None:
    assert chunk_markdown("") == []
    assert chunk_markdown("\n") == [Chunk(0, 1, "\n")]


def test_header_levels() -> None:
    assert header_level("## A") == 2
    assert header_level("   ### indented") == 3
    assert header_level("#") == 1
    assert header_level("#######  deep") == 7
    assert header_level("#tag") is None
    assert header_level("##\tTabbed") is None  # a tab after the hashes does not count
    assert header_level("\u3000# ideographic space trims") == 1


def test_headers_inside_code_fences_still_split_sections() -> None:
    content = "## Setup\n\n```sh\n# install deps\npip install x\n```\n\n## Next\n\ntext\n"
    chunks = chunk_markdown(content, max_bytes=40, overlap_chars=0)
    # "# install deps" inside the fence is a level-1 header: it starts a section and pops
    # "## Setup" off the stack, so the fence is cut in two.
    assert spans(chunks) == [(0, 3), (3, 7), (7, 10)]
    assert chunks[0].text == "## Setup\n\n```sh"
    assert chunks[1].text == "# install deps\npip install x\n```\n"
    assert chunks[2].text.startswith("[Context: # install deps]\n\n## Next")


def test_crlf_whole_file_keeps_cr_but_sections_drop_it() -> None:
    small = "# A\r\nline\r\n"
    assert chunk_markdown(small) == [Chunk(0, 2, small)]
    big = "## A\r\n" + "a b c\r\n" * 5 + "## B\r\n" + "d e f\r\n" * 5
    chunks = chunk_markdown(big, max_bytes=40, overlap_chars=0)
    assert spans(chunks) == [(0, 6), (6, 12)]
    assert all("\r" not in c.text for c in chunks)
    assert chunks[0].text == "## A\n" + "\n".join(["a b c"] * 5)


def test_line_longer_than_limit_and_overlap_only_chunk() -> None:
    content = "## H\n" + "A" * 150 + "\n\n"
    chunks = chunk_markdown(content, max_bytes=100, overlap_chars=20)
    assert chunks == [Chunk(0, 1, "## H"), Chunk(1, 2, "A" * 150), Chunk(3, 3, "A" * 20)]
    # The overlap-only chunk has an empty line range: start == end.
    assert chunks[-1].start_line == chunks[-1].end_line
    # Without overlap there is no such chunk.
    assert spans(chunk_markdown(content, max_bytes=100, overlap_chars=0)) == [(0, 1), (1, 2)]


def test_overlap_counts_characters_not_bytes() -> None:
    content = "## H\n" + "é" * 80 + "\n\n"
    chunks = chunk_markdown(content, max_bytes=100, overlap_chars=5)
    assert chunks[-1] == Chunk(3, 3, "é" * 5)


def test_multibyte_text_near_the_byte_limit() -> None:
    ascii_doc = "# T\n\n" + "e" * 800
    accented = "# T\n\n" + "é" * 800  # 805 characters but 1,605 bytes
    assert chunk_markdown(ascii_doc) == [Chunk(0, 3, ascii_doc)]
    assert chunk_markdown(accented) == [Chunk(0, 2, "# T"), Chunk(2, 3, "é" * 800)]


def test_greedy_packing_and_header_context() -> None:
    content = ("## Architecture\n\nintro line\n\n### Design\n\n"
               + "\n".join(f"design point {i}" for i in range(10)) + "\n")
    chunks = chunk_markdown(content, max_bytes=60, overlap_chars=320)
    design = [c for c in chunks if "design point" in c.text]
    assert design and all(c.text.startswith("[Context: ## Architecture]\n\n") for c in design)
    # Packing is greedy by lines: each piece (without its prefix) stays within 60 bytes.
    for c in design:
        body = c.text.split("\n\n", 1)[1]
        assert len(body.encode()) <= 60
    # A line range never overlaps the next one.
    for a, b in pairwise(chunks):
        assert a.end_line <= b.start_line


def test_whole_section_chunks_are_not_trimmed() -> None:
    content = "## A\n\n" + "x " * 20 + "\n\n## B\n\n" + "y " * 20 + "\n"
    chunks = chunk_markdown(content, max_bytes=50, overlap_chars=0)
    assert chunks[0].text.endswith("\n")  # the blank line before "## B"


def test_hash_is_blake3_of_the_final_text() -> None:
    c = chunk_markdown("## A\n\nx\n\n### B\n\n" + "y" * 40, max_bytes=20, overlap_chars=0)[-1]
    assert c.text.startswith("[Context: ## A]")
    assert c.hash == blake3(c.text.encode()).hexdigest()
    assert len(c.hash) == 64
