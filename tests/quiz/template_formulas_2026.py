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
