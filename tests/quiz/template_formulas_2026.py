"""Independent formulas for the 2026 templates on TP serving and NVL72 (issue 28 3),
restated from their sources for tests/quiz/test_templates_bank.py: the key first, then
each mistake in the order the template file lists it."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction

P = Mapping[str, Fraction]
Numbers = Fraction | tuple[Fraction, ...]
KiB = Fraction(2**10)


def _decode_message(p: P) -> list[Numbers]:
    # A decode step all-reduces one new token per sequence: b × h bf16 values.
    message = p["b"] * p["h"] * 2 / KiB
    t = p["t"]
    return [
        message,
        message * p["ctx"],  # the whole context counted
        message / t,  # a 1/t slice instead of the full-size partial sum
        p["h"] * 2 / KiB,  # one sequence
        message * 2,  # fp32
        message / 2,  # FP8, 1 byte per element
        message * 2 * (t - 1) / t,  # bytes a GPU sends in the ring, not the message
    ]


def _latency_share(p: P) -> list[Numbers]:
    # Ring all-reduce: latency 2(t-1)α, data 2(t-1)/t · S/B, in µs.
    t, alpha = p["t"], p["alpha"]
    size = p["b"] * p["h"] * 2
    per_us = p["B"] * 10**9 / 10**6  # bytes per µs
    latency = 2 * (t - 1) * alpha
    data = 2 * (t - 1) / t * size / per_us

    def share(lat: Fraction, dat: Fraction) -> Fraction:
        return 100 * lat / (lat + dat)

    return [
        share(latency, data),
        share(alpha, data),  # α paid once
        share(latency, 2 * (t - 1) * size / per_us),  # the whole message in every step
        share(latency, data / t),  # a 1/t slice as the message
        share(latency, size / per_us),  # S/B without 2(t-1)/t
        share(2 * latency, data),  # latency counted for both halves
        100 - share(latency, data),  # the data term's share
    ]


def _nvl72_weights(p: P) -> list[Numbers]:
    params, nbytes, t = p["P"], p["nbytes"], p["t"]
    copies = math.floor(72 / t)
    return [
        params * nbytes / t,
        params * nbytes,  # no split
        params * nbytes / 72,  # split over the whole rack
        params * nbytes / 8,  # TP kept at 8 GPUs
        params * nbytes / t * 10**9 / 2**30,  # GiB written as GB
        params * nbytes / (t * copies),  # split over every copy's GPUs
        2 * params * nbytes / t,  # gradients counted at inference
    ]


FORMULAS_2026: dict[str, Callable[[P], list[Numbers]]] = {
    "tpl-decode-allreduce-message": _decode_message,
    "tpl-decode-allreduce-latency-share": _latency_share,
    "tpl-nvl72-weights-per-gpu": _nvl72_weights,
}


def _dcp_read(p: P) -> list[Numbers]:
    # DCP: each rank reads exactly its new local shard, (4h/l) × h bf16 values.
    full = 4 * p["h"] * p["h"] * 2 / 2**20
    saved, loaded, replicas = p["s"], p["l"], p["d"]
    return [
        full / loaded,
        full / saved,  # one saved slice
        full,  # the whole tensor
        full / (loaded * replicas),  # split over the data-parallel replicas too
        full * 2 / loaded,  # fp32
        full * 5 / loaded,  # Adam's two fp32 moments read too
        full / (loaded * loaded),  # split in both dimensions
    ]


FORMULAS_2026["tpl-dcp-reshard-read-per-rank"] = _dcp_read


def _oneshot_time(p: P) -> list[Numbers]:
    # α–β with one link of B per direction per GPU: one-shot reads (n-1)·S in one step.
    n, alpha = p["n"], p["alpha"]
    x = p["s"] * KiB / (p["B"] * 10**9) * 10**6  # µs to move S bytes at B
    return [
        alpha + (n - 1) * x,
        2 * (n - 1) * alpha + 2 * (n - 1) / n * x,  # the ring
        2 * alpha + 2 * (n - 1) / n * x,  # two-shot
        alpha + x,  # one buffer read
        alpha + (n - 1) / n * x,  # a reduce-scatter's share
        (n - 1) * alpha + (n - 1) * x,  # α paid per peer
        alpha + n * x,  # the GPU's own buffer over NVLink too
    ]


def _cp_ring_kv(p: P) -> list[Numbers]:
    # Ring CP: each GPU receives the K/V of the other c-1 chunks, for its TP share of KV heads.
    c, t, kv, a = p["c"], p["t"], p["kv"], p["a"]
    chunk = p["seq"] / c
    head, bf16 = 128, 2

    def received(heads: Fraction, chunks: Fraction, tokens: Fraction, k_and_v: int = 2) -> Fraction:
        return chunks * tokens * k_and_v * heads * head * bf16 / 2**20

    return [
        received(kv / t, c - 1, chunk),
        received(a / t, c - 1, chunk),  # every query head, as in MHA
        received(kv / t, c - 1, chunk, k_and_v=1),  # K alone
        received(kv / t, Fraction(1), p["seq"]),  # the GPU's own chunk counted too
        received(kv, c - 1, chunk),  # TP not splitting the KV heads
        received(kv / t, Fraction(1), chunk),  # one ring step
        received(kv / (t * c), c - 1, chunk),  # heads split over CP too, as in Ulysses
    ]


def _moe_weights(p: P) -> list[Numbers]:
    # EP spreads the experts, ETP splits each expert's three matrices (gate, up, down).
    experts, ep, etp, k = p["E"], p["ep"], p["etp"], p["k"]
    one = 3 * p["h"] * p["f"] * 2 / Fraction(2**20)  # one gated expert in bf16, MiB
    local = experts / ep
    return [
        local * one / etp,
        local * one,  # ETP forgotten
        experts * one / etp,  # every expert on every GPU
        local * one * 2 / 3 / etp,  # two matrices, as in a GeLU MLP
        k * one / etp,  # only the top-k experts of one token
        local / etp * one / etp,  # ETP applied twice
        local * one * 2 / etp,  # fp32
    ]


def _mxfp8_gather(p: P) -> list[Numbers]:
    # MXFP8: 1 byte per value plus one 1-byte E8M0 scale per 32 values; the other t-1 shards.
    t = p["t"]
    data = p["s"] * p["h"] / Fraction(2**20)  # the whole tensor's FP8 data, MiB
    per_value = Fraction(33, 32)
    return [
        (t - 1) / t * data * per_value,
        (t - 1) / t * data * 2,  # bf16 gathered
        (t - 1) / t * data,  # scales forgotten
        data * per_value,  # the whole tensor
        data / t * per_value,  # one shard
        (t - 1) / t / t * data * per_value,  # (t-1)/t applied to one shard
        (t - 1) / t * data * Fraction(36, 32),  # fp32 scales
    ]


FORMULAS_2026["tpl-oneshot-allreduce-time"] = _oneshot_time
FORMULAS_2026["tpl-cp-ring-kv-bytes"] = _cp_ring_kv
FORMULAS_2026["tpl-moe-expert-weights-per-gpu"] = _moe_weights
FORMULAS_2026["tpl-mxfp8-allgather-bytes"] = _mxfp8_gather
