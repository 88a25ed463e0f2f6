"""Benchmark: the local embedder against raw onnxruntime on the same batches.

The embedder half of ``bench/memory.py`` (which imports :func:`bench_local_embedder`), also
runnable alone:

* ``raw``       ``InferenceSession.run`` on exactly the input tensors the embedder builds
                (:meth:`LocalEmbedder.feeds`), in a second session with the same options and
                thread count -- the baseline: the model's own cost, nothing else;
* ``embedder``  ``LocalEmbedder.embed(texts)`` end to end: tokenising, length-sorted
                batching, padding, the same run, mean pooling, normalisation, lists of floats.

Rounds alternate raw/embedder and the best round of each counts, so background load on the
shared machine hits both alike; the same ratio in CPU time (one intra-op thread) is printed
too, as it does not depend on what else the machine runs. Target: embedder throughput
>= 85 % of raw. Also reports the latency of embedding one search query (the embedder's share
of a hybrid search, whose p50 target is 80 ms in total).

    .venv/bin/python bench/embed_bench.py [--texts 96] [--rounds 5] [--threads 1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import dataclass

from rulelens.memory.embedders import (
    LOCAL_BATCH_SIZE,
    LOCAL_MAX_TOKENS,
    LocalEmbedder,
    local_model_files,
)

VOCABULARY = """
    index memory session search ranking chunk file workspace agent rule config python sqlite
    vector embedding token user query note deploy build test fix bug release staging postgres
    migration timeout lock retry cache worker queue schema column branch review merge lint
    format docker compose kubernetes secret env variable prefer always never use avoid because
"""
WORDS = tuple(VOCABULARY.split())

QUERIES = [
    "how do we deploy",
    "database migration lock timeout",
    "which linter do we use",
    "tests flaky on CI",
    "where are secrets stored",
    "prefer tabs or spaces",
    "docker compose staging",
    "retry policy for the worker queue",
    "what did we decide about caching",
    "branch naming convention",
]


def memory_like_texts(count: int, seed: int = 7) -> list[str]:
    """Memory-shaped chunks: a heading, a few bullet notes, lengths from a line to ~1,000
    characters (the agent's chunks go up to 1,600 bytes; most notes are short)."""
    rng = random.Random(seed)
    texts = []
    for i in range(count):
        bullets = rng.choice([1, 2, 3, 5, 8, 12])
        lines = [f"## Session note {i}"]
        for _ in range(bullets):
            words = rng.sample(WORDS, rng.randint(5, 14))
            lines.append("- " + " ".join(words).capitalize() + ".")
        texts.append("\n".join(lines))
    return texts


@dataclass(frozen=True)
class EmbedBench:
    texts: int
    batches: int
    raw_s: float
    embedder_s: float
    raw_cpu_s: float
    embedder_cpu_s: float
    query_p50_ms: float
    query_p95_ms: float

    @property
    def raw_per_s(self) -> float:
        return self.texts / self.raw_s

    @property
    def embedder_per_s(self) -> float:
        return self.texts / self.embedder_s

    @property
    def ratio(self) -> float:
        """Embedder throughput as a share of raw onnxruntime (target >= 0.85)."""
        return self.raw_s / self.embedder_s

    @property
    def cpu_ratio(self) -> float:
        """The same share in CPU time: insensitive to other processes on a busy machine."""
        return self.raw_cpu_s / self.embedder_cpu_s

    def lines(self) -> list[str]:
        return [
            f"local embedder (all-MiniLM-L6-v2 int8, {LOCAL_MAX_TOKENS} tokens, "
            f"batch {LOCAL_BATCH_SIZE}): {self.texts} texts in {self.batches} batches",
            f"  raw onnxruntime      {self.raw_per_s:8.1f} texts/s",
            f"  LocalEmbedder.embed  {self.embedder_per_s:8.1f} texts/s  "
            f"= {self.ratio:.1%} of raw (target >= 85%); "
            f"CPU time {self.cpu_ratio:.1%} of raw",
            f"  query embedding      p50 {self.query_p50_ms:.1f} ms, "
            f"p95 {self.query_p95_ms:.1f} ms",
        ]


def query_latency_ms(embedder: LocalEmbedder, queries: list[str]) -> tuple[float, float]:
    """p50 and p95 of embedding one query at a time (what a search does)."""
    embedder.embed(queries[:1])  # warm-up
    samples = []
    for _ in range(3):
        for query in queries:
            start = time.perf_counter()
            embedder.embed([query])
            samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))]


def bench_local_embedder(
    texts: list[str], *, rounds: int = 3, threads: int = 1, queries: list[str] | None = None
) -> EmbedBench:
    """Time the embedder and raw onnxruntime on the same batches of ``texts``."""
    import onnxruntime

    model_path, tokenizer_path = local_model_files()
    embedder = LocalEmbedder(model_path, tokenizer_path, threads=threads)
    feeds = [feed for _, feed in embedder.feeds(texts)]
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    raw = onnxruntime.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
    output = raw.get_outputs()[0].name
    raw.run([output], feeds[0])  # warm both sessions
    embedder.embed(texts[:1])

    raw_wall, raw_cpu, embed_wall, embed_cpu = [], [], [], []
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        for feed in feeds:
            raw.run([output], feed)
        raw_wall.append(time.perf_counter() - wall)
        raw_cpu.append(time.process_time() - cpu)
        wall, cpu = time.perf_counter(), time.process_time()
        vectors = embedder.embed(texts)
        embed_wall.append(time.perf_counter() - wall)
        embed_cpu.append(time.process_time() - cpu)
        assert len(vectors) == len(texts)
    p50, p95 = query_latency_ms(embedder, queries or QUERIES)
    return EmbedBench(
        len(texts),
        len(feeds),
        min(raw_wall),
        min(embed_wall),
        min(raw_cpu),
        min(embed_cpu),
        p50,
        p95,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    result = bench_local_embedder(
        memory_like_texts(args.texts), rounds=args.rounds, threads=args.threads
    )
    print("\n".join(result.lines()))


if __name__ == "__main__":
    main()
