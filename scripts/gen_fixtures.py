#!/usr/bin/env python3
"""Writes test/unit/fixtures/ops.json: inputs and numpy-computed outputs for
the eager runtime's ops, the reference values of test/unit/Runtime/FixtureTest.

numpy (from PyPI) is needed only to regenerate the file, never to build or
test: `pip install numpy && python3 scripts/gen_fixtures.py`. Expected values
are computed in float64 from the float32 inputs, so the tests measure the
runtime's float32 error against exact results. torch's gradients are added
to the same file afterwards by scripts/gen_grad_fixtures.py (run it after
this script, which writes the cases without them).
"""
import json
import math
import os

import numpy as np

from kiln_generator import unit_draws

rng = np.random.default_rng(20261122)
cases = []


def arr(x):
    x = np.asarray(x)
    dtype = {"float32": "float32", "float64": "float64", "int64": "int64",
             "int32": "int32", "bool": "bool"}[str(x.dtype)]
    return {"shape": list(x.shape), "dtype": dtype,
            "data": [bool(v) if x.dtype == bool else
                     (int(v) if x.dtype.kind == "i" else number(float(v)))
                     for v in x.reshape(-1)]}


def number(v):
    """A float for JSON, which has no NaN or infinities: those as strings."""
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def f32(*shape, lo=-3.0, hi=3.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def case(op, inputs, expected, **args):
    cases.append({"op": op, "inputs": [arr(i) for i in inputs],
                  "args": args, "expected": arr(expected)})


def d(x):
    return np.asarray(x, dtype=np.float64)


erf = np.vectorize(math.erf)

# Binary ops with broadcasting (shapes the unit tests name nowhere else).
for sa, sb in [((7,), (7,)), ((4, 5), (5,)), ((3, 1, 6), (4, 1)),
               ((2, 3, 4), (2, 1, 4)), ((1,), (3, 2)), ((), (5,))]:
    a, b = f32(*sa), f32(*sb)
    case("add", [a, b], (d(a) + d(b)).astype(np.float32))
    case("sub", [a, b], (d(a) - d(b)).astype(np.float32))
    case("mul", [a, b], (d(a) * d(b)).astype(np.float32))
    bb = np.where(np.abs(b) < 0.1, np.float32(0.5), b)
    case("div", [a, bb], (d(a) / d(bb)).astype(np.float32))
    case("maximum", [a, b], np.maximum(a, b))
    case("minimum", [a, b], np.minimum(a, b))
    for name, fn in [("lt", np.less), ("le", np.less_equal),
                     ("gt", np.greater), ("ge", np.greater_equal),
                     ("eq", np.equal), ("ne", np.not_equal)]:
        bq = np.round(b)
        case(name, [np.round(a), bq.astype(np.float32)],
             fn(np.round(a), bq))
    pa = f32(*sa, lo=0.1, hi=3.0)
    case("pow", [pa, b], (d(pa) ** d(b)).astype(np.float32))

cond = rng.uniform(size=(3, 4)) > 0.5
a, b = f32(4), f32(3, 1)
case("where", [cond, a, b], np.where(cond, a, b))

# Elementwise functions over a range that exercises every code path.
x = np.concatenate([f32(200, lo=-10, hi=10), f32(50, lo=-0.01, hi=0.01),
                    np.array([0.0, -0.0, 1.0, -1.0, 20.0, -20.0, 80.0, -80.0,
                              88.0, -100.0, -103.0], dtype=np.float32)])
xd = d(x)
pos = np.abs(x) + np.float32(1e-3)
case("abs", [x], np.abs(x))
case("exp", [x], np.exp(xd).astype(np.float32))
case("log", [pos], np.log(d(pos)).astype(np.float32))
case("sqrt", [pos], np.sqrt(d(pos)).astype(np.float32))
case("rsqrt", [pos], (1.0 / np.sqrt(d(pos))).astype(np.float32))
case("tanh", [x], np.tanh(xd).astype(np.float32))
case("sigmoid", [x], (1.0 / (1.0 + np.exp(-xd))).astype(np.float32))
case("relu", [x], np.maximum(x, 0))
case("gelu", [x], (0.5 * xd * (1.0 + erf(xd / math.sqrt(2.0)))).astype(np.float32))
case("gelu_tanh", [x], (0.5 * xd * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) *
                        (xd + 0.044715 * xd ** 3)))).astype(np.float32))
case("silu", [x], (xd / (1.0 + np.exp(-xd))).astype(np.float32))
case("neg", [x], -x)

# Reductions over dims, keepdim both ways.
r = f32(3, 4, 5)
for dims in [[], [0], [1], [-1], [0, 2], [2, 0, 1]]:
    for keep in [False, True]:
        ax = tuple(dims) if dims else None
        case("sum", [r], d(r).sum(axis=ax, keepdims=keep).astype(np.float32),
             dims=dims, keepdim=keep)
        case("mean", [r], d(r).mean(axis=ax, keepdims=keep).astype(np.float32),
             dims=dims, keepdim=keep)
        case("amax", [r], r.max(axis=ax, keepdims=keep), dims=dims, keepdim=keep)
        case("amin", [r], r.min(axis=ax, keepdims=keep), dims=dims, keepdim=keep)


def softmax(v, axis):
    e = np.exp(v - v.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


s = f32(3, 5, 7, lo=-8, hi=8)
for dim in [0, 1, -1]:
    case("softmax", [s], softmax(d(s), dim).astype(np.float32), dim=dim)
    case("log_softmax", [s], np.log(softmax(d(s), dim)).astype(np.float32), dim=dim)

# Norms over the trailing weight.dim() dims.
for xs, ws in [((4, 6), (6,)), ((2, 3, 5), (5,)), ((2, 3, 5), (3, 5))]:
    v, w, bias = f32(*xs), f32(*ws), f32(*ws)
    axes = tuple(range(len(xs) - len(ws), len(xs)))
    mu = d(v).mean(axis=axes, keepdims=True)
    var = ((d(v) - mu) ** 2).mean(axis=axes, keepdims=True)
    case("layer_norm", [v, w, bias],
         ((d(v) - mu) / np.sqrt(var + 1e-5) * d(w) + d(bias)).astype(np.float32),
         eps=1e-5)
    ms = (d(v) ** 2).mean(axis=axes, keepdims=True)
    case("rms_norm", [v, w], (d(v) / np.sqrt(ms + 1e-6) * d(w)).astype(np.float32),
         eps=1e-6)

# matmul: dot, mv, vm, mm, batched with broadcasting.
for sa, sb in [((5,), (5,)), ((3, 5), (5,)), ((5,), (5, 4)), ((3, 5), (5, 4)),
               ((2, 3, 5), (5, 4)), ((2, 1, 3, 5), (4, 5, 2)), ((6,), (2, 6, 3)),
               ((2, 3, 5), (5,))]:
    a, b = f32(*sa), f32(*sb)
    case("matmul", [a, b], np.matmul(d(a), d(b)).astype(np.float32))

xl, wl, bl = f32(2, 3, 5), f32(4, 5), f32(4)
case("linear", [xl, wl, bl], (d(xl) @ d(wl).T + d(bl)).astype(np.float32))
ids = rng.integers(0, 6, size=(2, 3)).astype(np.int64)
table = f32(6, 4)
case("embedding", [ids, table], table[ids])


def conv2d(x, w, b, stride, pad):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    ho = (h + 2 * pad[0] - kh) // stride[0] + 1
    wo = (wd + 2 * pad[1] - kw) // stride[1] + 1
    out = np.zeros((n, o, ho, wo))
    for i in range(ho):
        for j in range(wo):
            patch = xp[:, :, i * stride[0]:i * stride[0] + kh,
                       j * stride[1]:j * stride[1] + kw]
            out[:, :, i, j] = np.einsum("nckl,ockl->no", patch, w)
    return out + b.reshape(1, -1, 1, 1)


for xs, ws, stride, pad in [((2, 3, 7, 6), (4, 3, 3, 3), [1, 1], [1, 1]),
                            ((1, 2, 9, 8), (3, 2, 3, 2), [2, 3], [0, 1])]:
    v, w, bias = f32(*xs), f32(*ws), f32(ws[0])
    case("conv2d", [v, w, bias],
         conv2d(d(v), d(w), d(bias), stride, pad).astype(np.float32),
         stride=stride, padding=pad)

parts = [f32(2, 3), f32(2, 1), f32(2, 4)]
case("cat", parts, np.concatenate(parts, axis=1), dim=1)
c0 = [f32(1, 3), f32(2, 3)]
case("cat", c0, np.concatenate(c0, axis=0), dim=0)

logits = f32(5, 7)
targets = rng.integers(0, 7, size=(5,)).astype(np.int64)
lp = np.log(softmax(d(logits), 1))
case("cross_entropy", [logits, targets],
     np.float32(-lp[np.arange(5), targets].mean()))

# More elementwise functions on the inputs above (after the other cases, so
# that those keep their random inputs).
case("sin", [x], np.sin(xd).astype(np.float32))
case("cos", [x], np.cos(xd).astype(np.float32))
case("tan", [x], np.tan(xd).astype(np.float32))
case("atan", [x], np.arctan(xd).astype(np.float32))
case("erf", [x], erf(xd).astype(np.float32))
case("erfc", [x], np.vectorize(math.erfc)(xd).astype(np.float32))
above = np.concatenate([f32(100, lo=-0.99, hi=10), f32(50, lo=-0.01, hi=0.01),
                        np.array([0.0, -0.0, 1e-8, -1e-8], dtype=np.float32)])
case("log1p", [above], np.log1p(d(above)).astype(np.float32))
case("expm1", [x], np.expm1(xd).astype(np.float32))
case("log2", [pos], np.log2(d(pos)).astype(np.float32))
case("exp2", [x], np.exp2(xd).astype(np.float32))
nonzero = np.where(x == 0, np.float32(0.25), x)
case("reciprocal", [nonzero], (1.0 / d(nonzero)).astype(np.float32))
softplus = np.where(xd > 20, xd, np.log1p(np.exp(np.minimum(xd, 20))))
case("softplus", [x], softplus.astype(np.float32))
case("mish", [x], (xd * np.tanh(softplus)).astype(np.float32))
case("hardswish", [x], (xd * np.clip(xd + 3, 0, 6) / 6).astype(np.float32))
case("hardsigmoid", [x], (np.clip(xd + 3, 0, 6) / 6).astype(np.float32))
halves = np.concatenate([x, np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997],
                                     dtype=np.float32)])
ints = rng.integers(-50, 50, size=(4, 5)).astype(np.int64)
for name, fn in [("floor", np.floor), ("ceil", np.ceil), ("round", np.round),
                 ("trunc", np.trunc)]:
    case(name, [halves], fn(halves))  # np.round rounds halves to even
    case(name, [ints], ints)
case("square", [x], (xd * xd).astype(np.float32))
case("square", [ints], ints * ints)

# Compositions of elementwise ops (lib/Runtime/Ops/Composite.cpp), with
# torch's semantics; special values included.
special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.5],
                   dtype=np.float32)
xs = np.concatenate([x, special])
xsd = d(xs)
with np.errstate(invalid="ignore", over="ignore"):
    case("leaky_relu", [xs], np.where(xsd > 0, xsd, xsd * 0.2).astype(np.float32),
         slope=0.2)
    case("elu", [xs], np.where(xsd > 0, xsd, 1.5 * np.expm1(xsd)).astype(np.float32),
         alpha=1.5)
    case("clamp", [xs], np.clip(xs, np.float32(-2), np.float32(3)), min=-2.0, max=3.0)
    case("clamp", [xs], np.maximum(xs, np.float32(-1)), min=-1.0)
    case("clamp", [xs], np.minimum(xs, np.float32(0.5)), max=0.5)
    case("isnan", [xs], np.isnan(xs))
    case("isinf", [xs], np.isinf(xs))
    case("isfinite", [xs], np.isfinite(xs))
    case("maximum_scalar", [xs], np.maximum(xs, np.float32(0.25)), value=0.25)
    case("minimum_scalar", [xs], np.minimum(xs, np.float32(0.25)), value=0.25)
la, lb = rng.integers(-1, 2, size=(3, 4)).astype(np.int64), f32(4)
lb[0] = 0.0
case("logical_and", [la, lb], np.logical_and(la, lb))
case("logical_or", [la, lb], np.logical_or(la, lb))
case("logical_not", [la], np.logical_not(la))
mx, mm = f32(3, 5), rng.uniform(size=(5,)) > 0.5
case("masked_fill", [mx, mm], np.where(mm, np.float32(-1e9), mx), value=-1e9)
mi = rng.integers(-9, 9, size=(2, 3)).astype(np.int64)
mask2 = np.array([[True], [False]])
# An integer tensor keeps its dtype: the value converts to it (2.7 -> 2).
case("masked_fill", [mi, mask2], np.where(mask2, np.int64(2), mi), value=2.7)
ls, le = f32(4, 3), f32(3)
for w in [0.25, 0.75, 1.0]:
    near_start = d(ls) + w * (d(le) - d(ls))
    case("lerp", [ls, le], near_start.astype(np.float32), weight=w)

# sign as ATen computes it, (0 < x) - (x < 0): NaN gives 0, not numpy's NaN.
with np.errstate(invalid="ignore"):
    case("sign", [xs], ((0 < xs).astype(np.float32) - (xs < 0).astype(np.float32)))
case("sign", [ints], np.sign(ints))
case("full_like", [ints], np.full_like(ints, 2), value=2.7)
case("full_like", [mx], np.full_like(mx, -0.5), value=-0.5)

# Reductions composed of the others: var/std (Bessel's correction), a
# stable logsumexp (rows of -inf and +inf included), p-norms, any/all.
v3 = f32(3, 4, 5)
for dims, corr, keep in [([], 1, False), ([1], 1, True), ([0, 2], 0, False),
                         ([-1], 1, False)]:
    ax = tuple(dims) if dims else None
    var = d(v3).var(axis=ax, ddof=corr, keepdims=keep)
    case("var", [v3], var.astype(np.float32), dims=dims, correction=corr,
         keepdim=keep)
    case("std", [v3], np.sqrt(var).astype(np.float32), dims=dims,
         correction=corr, keepdim=keep)
lse = f32(4, 6, lo=-20, hi=20)
lse[1, :] = -np.inf
lse[2, 3] = np.inf
with np.errstate(invalid="ignore", divide="ignore"):
    for dims, keep in [([1], False), ([0, 1], True), ([-1], True)]:
        ax = tuple(dims)
        m = d(lse).max(axis=ax, keepdims=True)
        m = np.where(np.isinf(m), 0.0, m)
        out = np.log(np.exp(d(lse) - m).sum(axis=ax, keepdims=True)) + m
        if not keep:
            out = out.squeeze(axis=ax)
        case("logsumexp", [lse], out.astype(np.float32), dims=dims, keepdim=keep)
nv = f32(3, 7)
nv[0, 0] = 0.0
for p in [2.0, 1.0, 0.0, 3.0, math.inf, -math.inf]:
    for dims, keep in [([], False), ([1], True)]:
        ax = tuple(dims) if dims else None
        a = np.abs(d(nv))
        if p == 0:
            out = (a != 0).sum(axis=ax, keepdims=keep)
        elif math.isinf(p):
            out = (a.max if p > 0 else a.min)(axis=ax, keepdims=keep)
        else:
            out = (a ** p).sum(axis=ax, keepdims=keep) ** (1.0 / p)
        case("norm", [nv], np.asarray(out).astype(np.float32), p=number(p),
             dims=dims, keepdim=keep)
flags = rng.integers(0, 3, size=(4, 5)).astype(np.int64)
flags[0, :] = 1
for dims, keep in [([], False), ([1], False), ([0], True)]:
    ax = tuple(dims) if dims else None
    case("any", [flags], np.any(flags, axis=ax, keepdims=keep), dims=dims,
         keepdim=keep)
    case("all", [flags], np.all(flags, axis=ax, keepdims=keep), dims=dims,
         keepdim=keep)


# tril and triu: the last two dims, any diagonal, integers keep their dtype.
tx, ti = f32(2, 4, 5), rng.integers(-9, 9, size=(5, 3)).astype(np.int64)
for k in [0, 1, -2]:
    case("tril", [tx], np.tril(tx, k), diagonal=k)
    case("triu", [tx], np.triu(tx, k), diagonal=k)
    case("tril", [ti], np.tril(ti, k), diagonal=k)
    case("triu", [ti], np.triu(ti, k), diagonal=k)


def attention(q, k, v, mask=None, causal=False, scale=None):
    """torch's scaled_dot_product_attention in float64; a query that attends
    to no key gives zeros (torch >= 2.5)."""
    q, k, v = d(q), d(k), d(v)
    s = q @ np.swapaxes(k, -1, -2) * (scale if scale is not None
                                       else 1 / math.sqrt(q.shape[-1]))
    L, S = s.shape[-2:]
    if causal:
        s = np.where(np.tril(np.ones((L, S), dtype=bool)), s, -np.inf)
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == bool else s + d(mask)
    m = s.max(axis=-1, keepdims=True)
    dead = np.isneginf(m)
    e = np.exp(s - np.where(dead, 0.0, m))
    p = np.where(dead, 0.0, e / np.where(dead, 1.0, e.sum(-1, keepdims=True)))
    return p @ v


def sdpa_case(q, k, v, mask=None, causal=False, scale=None):
    inputs = [q, k, v] + ([mask] if mask is not None else [])
    out = attention(q, k, v, mask, causal, scale).astype(q.dtype)
    case("scaled_dot_product_attention", inputs, out, is_causal=causal,
         scale=scale)


sdpa_case(f32(2, 3, 5, 8), f32(2, 3, 7, 8), f32(2, 3, 7, 6))
sdpa_case(f32(9, 4), f32(9, 4), f32(9, 3), causal=True)
sdpa_case(f32(2, 5, 4), f32(2, 3, 4), f32(2, 3, 4), causal=True)  # L > S
bm = rng.uniform(size=(5, 7)) > 0.4
bm[2, :] = False  # a query that attends to nothing
sdpa_case(f32(2, 5, 8), f32(2, 7, 8), f32(2, 7, 8), mask=bm)
sdpa_case(f32(2, 3, 5, 8), f32(2, 3, 7, 8), f32(2, 3, 7, 8),
          mask=f32(1, 1, 5, 7), scale=0.3)
# Batch dims broadcast; keys in several blocks, queries in several tasks.
sdpa_case(f32(2, 3, 70, 16), f32(1, 3, 300, 16), f32(1, 3, 300, 16),
          causal=True)
sdpa_case(f32(3, 70, 16), f32(3, 300, 16), f32(3, 300, 16),
          mask=rng.uniform(size=(70, 300)) > 0.3)
sdpa_case(rng.standard_normal((2, 6, 5)), rng.standard_normal((2, 6, 5)),
          rng.standard_normal((2, 6, 5)), causal=True)  # float64

# Compositions: stack, narrow, select, the products, one_hot, eye,
# dropout (the identity at inference) and batch_norm with running stats.
sa, sb = f32(2, 3), f32(2, 3)
for dim in [0, 1, 2, -1]:
    case("stack", [sa, sb], np.stack([sa, sb], axis=dim), dim=dim)
nx = f32(4, 6)
case("narrow", [nx], nx[:, 1:4], dim=1, start=1, length=3)
case("narrow", [nx], nx[1:3, :], dim=0, start=-3, length=2)
case("select", [nx], nx[:, 5], dim=-1, index=-1)
case("select", [nx], nx[2, :], dim=0, index=2)
ba, bb = f32(3, 4, 5), f32(3, 5, 2)
case("bmm", [ba, bb], (d(ba) @ d(bb)).astype(np.float32))
bi = f32(3, 4, 2)
case("baddbmm", [bi, ba, bb], (0.5 * d(bi) + 2 * (d(ba) @ d(bb))).astype(np.float32),
     beta=0.5, alpha=2.0)
ma, mb, mi = f32(4, 5), f32(5, 3), f32(3)
case("addmm", [mi, ma, mb], (d(mi) + d(ma) @ d(mb)).astype(np.float32),
     beta=1.0, alpha=1.0)
mnan = np.full((4, 3), np.nan, dtype=np.float32)
case("addmm", [mnan, ma, mb], (3 * (d(ma) @ d(mb))).astype(np.float32),
     beta=0.0, alpha=3.0)  # beta 0 ignores the input, NaN included
oh = rng.integers(0, 5, size=(2, 3)).astype(np.int64)
case("one_hot", [oh], np.eye(5, dtype=np.int64)[oh], num_classes=5)
case("one_hot", [oh], np.eye(oh.max() + 1, dtype=np.int64)[oh], num_classes=-1)
case("eye", [], np.eye(3, 4, dtype=np.float32), n=3, m=4)
case("eye", [], np.eye(2, dtype=np.float32), n=2, m=-1)
case("dropout", [nx], nx, p=0.3)
bx, bmean, bvar, bw, bbias = f32(2, 3, 4, 5), f32(3), f32(3, lo=0.5, hi=2), f32(3), f32(3)
bn = (d(bx) - d(bmean)[:, None, None]) / np.sqrt(d(bvar)[:, None, None] + 1e-5)
case("batch_norm", [bx, bmean, bvar, bw, bbias],
     (bn * d(bw)[:, None, None] + d(bbias)[:, None, None]).astype(np.float32),
     eps=1e-5)
b2 = f32(6, 3)
case("batch_norm", [b2, bmean, bvar],
     ((d(b2) - d(bmean)) / np.sqrt(d(bvar) + 1e-3)).astype(np.float32), eps=1e-3)

# prod: floats over any dims, integers and bools as int64.
px = f32(3, 4, 5, lo=0.5, hi=1.5)
for dims, keep in [([], False), ([1], False), ([0, 2], True), ([-1], False)]:
    ax = tuple(dims) if dims else None
    case("prod", [px], np.asarray(d(px).prod(axis=ax, keepdims=keep)).astype(np.float32),
         dims=dims, keepdim=keep)
pi = rng.integers(-4, 5, size=(3, 7)).astype(np.int64)
case("prod", [pi], pi.prod(axis=1), dims=[1], keepdim=False)
case("prod", [pi > 0], (pi > 0).prod(axis=0).astype(np.int64), dims=[0],
     keepdim=False)

# argmax and argmin: the first extremum; NaN counts as one; ties keep the
# first; flattened when no dim is given.
ax = f32(4, 6)
ax[1, 3] = np.nan
ax[1, 5] = np.nan
ax[2, :] = 1.0  # all tied
for fn in ["argmax", "argmin"]:
    def first(a, axis=None, keepdims=False):
        a = d(a)
        nan = np.isnan(a)
        filled = np.where(nan, np.inf if fn == "argmax" else -np.inf, a)
        r = (np.argmax if fn == "argmax" else np.argmin)(filled, axis=axis)
        if nan.any():  # the first NaN wins
            if axis is None:
                r = np.argmax(nan.reshape(-1)) if nan.any() else r
            else:
                has = nan.any(axis=axis)
                r = np.where(has, np.argmax(nan, axis=axis), r)
        r = np.asarray(r, dtype=np.int64)
        if keepdims:
            r = np.expand_dims(r, axis=tuple(range(a.ndim)) if axis is None else axis)
        return r
    for dim, keep in [(None, False), (1, False), (0, True), (-1, True), (None, True)]:
        case(fn, [ax], first(ax, dim, keep), dim=dim, keepdim=keep)
    ai = rng.integers(-5, 5, size=(3, 8)).astype(np.int64)
    case(fn, [ai], first(ai, 1), dim=1, keepdim=False)

# gather and the ops written with it (index_select, flip, roll, pad), the
# reshaping ones (repeat, tile, unflatten) and the pieces of chunk and split
# (one piece per case: `piece`).
gx = f32(4, 6)
gi = rng.integers(0, 6, size=(2, 3)).astype(np.int64)  # smaller than gx
case("gather", [gx, gi], np.take_along_axis(gx[:2], gi, 1), dim=1)
gj = rng.integers(0, 4, size=(5, 6)).astype(np.int64)  # more rows than gx
case("gather", [gx, gj], np.take_along_axis(gx, gj, 0), dim=-2)
g3 = rng.integers(-9, 9, size=(3, 4, 2)).astype(np.int32)
gk = rng.integers(0, 2, size=(3, 2, 2)).astype(np.int32)
case("gather", [g3, gk], np.take_along_axis(g3[:, :2], gk, 2), dim=2)
si = np.array([3, 0, 3, 1], dtype=np.int64)
case("index_select", [gx, si], np.take(gx, si, axis=0), dim=0)
case("index_select", [gx, si], np.take(gx, si, axis=1), dim=-1)
fx = f32(3, 4, 5)
for dims in [[0], [-1], [0, 2], [1, 0, 2]]:
    case("flip", [fx], np.flip(fx, axis=tuple(dims)), dims=dims)
for shifts, dims in [([2], [1]), ([-7], [-1]), ([1, 5], [0, 2]), ([3], [])]:
    expected = np.roll(fx, shifts[0]) if not dims else np.roll(fx, shifts, axis=dims)
    case("roll", [fx], expected, shifts=shifts, dims=dims)
rx = f32(2, 3)
for reps in [[2, 3], [1, 1], [3, 1, 2], [0, 2]]:
    case("repeat", [rx], np.tile(rx, reps), reps=reps)
for reps in [[2], [2, 2], [2, 1, 3]]:
    case("tile", [rx], np.tile(rx, reps), reps=reps)
ux = f32(2, 12, 3)
for dim, sizes in [(1, [3, 4]), (-2, [2, -1, 3]), (0, [1, 2]), (2, [3])]:
    shape = list(ux.shape)
    dd = dim % 3
    case("unflatten", [ux], ux.reshape(shape[:dd] + sizes + shape[dd + 1:]),
         dim=dim, sizes=sizes)
px2 = f32(2, 4, 5)
case("pad", [px2], np.pad(px2, [(0, 0), (0, 0), (1, 2)]), pads=[1, 2],
     mode="constant", value=0.0)
case("pad", [px2], np.pad(px2, [(0, 0), (2, 1), (0, 3)], constant_values=-1.5),
     pads=[0, 3, 2, 1], mode="constant", value=-1.5)
case("pad", [px2], np.pad(px2, [(0, 0), (0, 0), (0, 1)])[:, :, 2:],
     pads=[-2, 1], mode="constant", value=0.0)
case("pad", [px2], np.pad(px2, [(0, 0), (3, 2), (1, 4)], mode="reflect"),
     pads=[1, 4, 3, 2], mode="reflect", value=0.0)
case("pad", [px2], np.pad(px2, [(0, 0), (1, 0), (2, 6)], mode="edge"),
     pads=[2, 6, 1, 0], mode="replicate", value=0.0)
pint = rng.integers(-5, 5, size=(3, 4)).astype(np.int64)
case("pad", [pint], np.pad(pint, [(1, 0), (0, 2)], constant_values=7),
     pads=[0, 2, 1, 0], mode="constant", value=7.0)
cx = f32(3, 7)
for chunks, dim in [(3, 1), (4, 1), (2, 0), (7, -1)]:
    n = cx.shape[dim]
    size = -(-n // chunks)
    for piece, start in enumerate(range(0, n, size)):
        case("chunk", [cx], np.take(cx, range(start, min(start + size, n)), axis=dim),
             chunks=chunks, dim=dim, piece=piece)
for size, dim in [(3, 1), (2, 0), (7, 1), (10, 1)]:
    n = cx.shape[dim]
    for piece, start in enumerate(range(0, n, size)):
        case("split", [cx], np.take(cx, range(start, min(start + size, n)), axis=dim),
             size=size, dim=dim, piece=piece)
for sizes, dim in [([2, 0, 5], 1), ([1, 2], 0)]:
    bounds = np.cumsum([0] + sizes)
    for piece in range(len(sizes)):
        case("split", [cx], np.take(cx, range(bounds[piece], bounds[piece + 1]), axis=dim),
             sizes=sizes, dim=dim, piece=piece)

# group_norm, instance_norm (statistics per sample and group, the biased
# variance), conv1d (cross-correlation, as torch's).
def group_norm_ref(x, groups, w=None, b=None, eps=1e-5):
    n, c = x.shape[:2]
    rows = d(x).reshape(n, groups, -1)
    y = (rows - rows.mean(-1, keepdims=True)) / np.sqrt(rows.var(-1, keepdims=True) + eps)
    y = y.reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    if w is not None:
        y = y * d(w).reshape(shape)
    if b is not None:
        y = y + d(b).reshape(shape)
    return y.astype(x.dtype)
gn, gw, gb = f32(2, 6, 3, 4), f32(6), f32(6)
case("group_norm", [gn, gw, gb], group_norm_ref(gn, 3, gw, gb), groups=3, eps=1e-5)
case("group_norm", [gn], group_norm_ref(gn, 1, eps=1e-3), groups=1, eps=1e-3)
g2 = f32(5, 4)
case("group_norm", [g2], group_norm_ref(g2, 2), groups=2, eps=1e-5)
i3 = f32(2, 3, 7)
case("instance_norm", [i3, gw[:3], gb[:3]], group_norm_ref(i3, 3, gw[:3], gb[:3]), eps=1e-5)
case("instance_norm", [gn], group_norm_ref(gn, 6), eps=1e-5)
def conv1d_ref(x, w, b, stride, padding):
    xp = np.pad(d(x), [(0, 0), (0, 0), (padding, padding)])
    k = w.shape[2]
    length = (xp.shape[2] - k) // stride + 1
    out = np.zeros((x.shape[0], w.shape[0], length))
    for t in range(length):
        window = xp[:, :, t * stride:t * stride + k]
        out[:, :, t] = np.einsum("nck,ock->no", window, d(w))
    if b is not None:
        out += d(b)[None, :, None]
    return out.astype(np.float32)
cx1, cw1, cb1 = f32(2, 3, 9), f32(4, 3, 3), f32(4)
case("conv1d", [cx1, cw1, cb1], conv1d_ref(cx1, cw1, cb1, 1, 1), stride=1, padding=1)
case("conv1d", [cx1, cw1], conv1d_ref(cx1, cw1, None, 2, 0), stride=2, padding=0)

# max and min along a dim: (values, indices), argmax's first extremum and
# NaN rule (`part` 0 the values, 1 the indices); and of all elements.
mx = f32(4, 5)
mx[2, 1] = np.nan
mx[3, :] = 0.5  # all tied: index 0
for fn, argf in [("max", np.argmax), ("min", np.argmin)]:
    for dim, keep in [(1, False), (0, True), (-1, True)]:
        filled = np.where(np.isnan(mx), np.inf if fn == "max" else -np.inf, mx)
        idx = argf(filled, axis=dim)
        nan = np.isnan(mx)
        idx = np.where(nan.any(axis=dim), np.argmax(nan, axis=dim), idx)
        vals = np.take_along_axis(mx, np.expand_dims(idx, dim), dim)
        if not keep:
            vals = np.squeeze(vals, dim)
        else:
            idx = np.expand_dims(idx, dim)
        case(fn, [mx], vals, dim=dim, keepdim=keep, part=0)
        case(fn, [mx], idx.astype(np.int64), dim=dim, keepdim=keep, part=1)
    clean = mx[:2]
    case(fn, [clean], np.asarray(clean.max() if fn == "max" else clean.min()))

# linspace: torch's two halves, computed in float32 as torch computes it.
for start, end, steps in [(0.0, 1.0, 5), (-3.0, 7.5, 12), (2.0, -2.0, 7), (1.5, 9.0, 1), (0.0, 1.0, 0)]:
    i = np.arange(steps, dtype=np.float32)
    step = np.float32((end - start) / max(steps - 1, 1)) if steps > 1 else np.float32(0)
    up = i * step + np.float32(start)
    down = np.float32(end) - step * (np.float32(steps - 1) - i)
    case("linspace", [], np.where(i < steps // 2, up, down).astype(np.float32),
         start=start, end=end, steps=steps)

# conv2d and conv1d with dilation and groups (depthwise: groups = channels).
def conv2d_general(x, w, b, stride, pad, dil, groups):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(d(x), ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    ho = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    og = o // groups
    out = np.zeros((n, o, ho, wo))
    for g in range(groups):
        for i in range(ho):
            for j in range(wo):
                ys = i * stride[0] + dil[0] * np.arange(kh)
                xs = j * stride[1] + dil[1] * np.arange(kw)
                patch = xp[:, g * cg:(g + 1) * cg][:, :, ys][:, :, :, xs]
                out[:, g * og:(g + 1) * og, i, j] = np.einsum(
                    "nckl,ockl->no", patch, d(w[g * og:(g + 1) * og]))
    if b is not None:
        out += d(b).reshape(1, -1, 1, 1)
    return out.astype(np.float32)
for xs, ws, stride, pad, dil, groups in [
        ((2, 4, 7, 6), (4, 1, 3, 3), [1, 1], [1, 1], [1, 1], 4),
        ((1, 4, 9, 8), (6, 2, 3, 2), [2, 1], [2, 1], [2, 3], 2),
        ((2, 3, 8, 8), (2, 3, 3, 3), [1, 2], [0, 0], [3, 1], 1)]:
    v, w, bias = f32(*xs), f32(*ws), f32(ws[0])
    case("conv2d", [v, w, bias], conv2d_general(v, w, bias, stride, pad, dil, groups),
         stride=stride, padding=pad, dilation=dil, groups=groups)
cx2, cw2 = f32(2, 4, 11), f32(6, 2, 3)
case("conv1d", [cx2, cw2, cb1[:1].repeat(6)],
     conv2d_general(cx2[:, :, None], cw2[:, :, None], cb1[:1].repeat(6), [1, 1], [0, 2], [1, 2], 2)[:, :, 0],
     stride=1, padding=2, dilation=2, groups=2)

# Pooling, as ATen's kernels: windows at o * stride - padding, taps outside
# the input skipped, ceil_mode's last window only where it starts inside
# the input or its left padding; NaN in a window is its max.
def pool_out(size, k, s, p, dil, ceil):
    room = size + 2 * p - dil * (k - 1) - 1 + (s - 1 if ceil else 0)
    o = room // s + 1
    if ceil and (o - 1) * s >= size + p:
        o -= 1
    return o
def max_pool_ref(x, k, s, p, dil, ceil):
    h, w = x.shape[-2:]
    ho, wo = pool_out(h, k[0], s[0], p[0], dil[0], ceil), pool_out(w, k[1], s[1], p[1], dil[1], ceil)
    out = np.full(x.shape[:-2] + (ho, wo), -np.inf, dtype=np.float64)
    for i in range(ho):
        for j in range(wo):
            for a in range(k[0]):
                y = i * s[0] - p[0] + a * dil[0]
                if y < 0 or y >= h:
                    continue
                for b in range(k[1]):
                    z = j * s[1] - p[1] + b * dil[1]
                    if z < 0 or z >= w:
                        continue
                    v = d(x[..., y, z])
                    cur = out[..., i, j]
                    out[..., i, j] = np.where(np.isnan(v) | np.isnan(cur), np.nan, np.maximum(cur, v))
    return out.astype(np.float32)
def avg_pool_ref(x, k, s, p, ceil, count_pad, divisor=None):
    h, w = x.shape[-2:]
    ho, wo = pool_out(h, k[0], s[0], p[0], 1, ceil), pool_out(w, k[1], s[1], p[1], 1, ceil)
    out = np.zeros(x.shape[:-2] + (ho, wo))
    for i in range(ho):
        for j in range(wo):
            y0, z0 = i * s[0] - p[0], j * s[1] - p[1]
            y1, z1 = min(y0 + k[0], h + p[0]), min(z0 + k[1], w + p[1])
            padded = (y1 - y0) * (z1 - z0)
            y0, z0, y1, z1 = max(y0, 0), max(z0, 0), min(y1, h), min(z1, w)
            total = d(x[..., y0:y1, z0:z1]).sum(axis=(-2, -1))
            div = divisor if divisor else (padded if count_pad else (y1 - y0) * (z1 - z0))
            out[..., i, j] = total / div
    return out.astype(np.float32)
px = f32(2, 3, 7, 9)
px[1, 2, 3, 4] = np.nan
for k, s, p, dil, ceil in [([3, 3], [2, 2], [1, 1], [1, 1], False),
                           ([2, 3], [2, 3], [1, 0], [1, 1], True),
                           ([3, 2], [1, 2], [1, 1], [2, 1], False),
                           ([3, 3], [2, 2], [1, 1], [2, 2], True)]:
    case("max_pool2d", [px], max_pool_ref(px, k, s, p, dil, ceil),
         kernel=k, stride=s, padding=p, dilation=dil, ceil_mode=ceil)
ax = f32(3, 8, 7)
for k, s, p, ceil, cp, div in [([2, 2], [2, 2], [0, 0], False, True, None),
                               ([3, 3], [2, 2], [1, 1], True, True, None),
                               ([3, 2], [2, 1], [1, 1], True, False, None),
                               ([3, 3], [1, 1], [1, 1], False, True, 4)]:
    extra = {"divisor": div} if div else {}
    case("avg_pool2d", [ax], avg_pool_ref(ax, k, s, p, ceil, cp, div),
         kernel=k, stride=s, padding=p, ceil_mode=ceil, count_include_pad=cp, **extra)
def adaptive_ref(x, out):
    h, w = x.shape[-2:]
    res = np.zeros(x.shape[:-2] + tuple(out))
    for i in range(out[0]):
        for j in range(out[1]):
            y0, y1 = (i * h) // out[0], -((-(i + 1) * h) // out[0])
            z0, z1 = (j * w) // out[1], -((-(j + 1) * w) // out[1])
            res[..., i, j] = d(x[..., y0:y1, z0:z1]).mean(axis=(-2, -1))
    return res.astype(np.float32)
for out_size in [[1, 1], [3, 2], [5, 4], [7, 9]]:
    case("adaptive_avg_pool2d", [px[:, :, :, :]] if out_size != [5, 4] else [ax],
         adaptive_ref(px if out_size != [5, 4] else ax, out_size), output_size=out_size)

# einsum: torch's subscripts (np.einsum computes the same contractions).
eq_a, eq_b = f32(2, 3, 4, 5), f32(2, 3, 6, 5)
for eq, ops in [("bhqd,bhkd->bhqk", [eq_a, eq_b]),
                ("bhqk,bhkd->bhqd", [f32(2, 3, 4, 6), eq_b]),
                ("ij,jk->ik", [f32(3, 4), f32(4, 2)]),
                ("ij,jk", [f32(3, 4), f32(4, 2)]),
                ("i,j->ij", [f32(3), f32(4)]),
                ("bi,bi->b", [f32(4, 5), f32(4, 5)]),
                ("ijk->kji", [f32(2, 3, 4)]),
                ("ijk->j", [f32(2, 3, 4)]),
                ("bij,jk->bik", [f32(2, 3, 4), f32(4, 5)]),
                ("...ij,...jk->...ik", [f32(2, 1, 3, 4), f32(5, 4, 2)]),
                ("abc,cd,->abd".replace(",->", "->"), [f32(2, 3, 4), f32(4, 2)]),
                ("ik,kj->", [f32(3, 4), f32(4, 2)])]:
    case("einsum", ops, np.einsum(eq, *[d(o) for o in ops]).astype(np.float32), equation=eq)

# interpolate, as ATen places the sources: nearest at floor(o * scale) with
# a float32 scale, bilinear at (o + 0.5) * scale - 0.5 clamped at 0 (or
# o * (in - 1) / (out - 1) with align_corners) between two neighbours.
def resample(x, axis, out, factor, mode, align):
    n = x.shape[axis]
    o = np.arange(out)
    if mode == "nearest":
        scale = np.float32(1.0 / factor) if factor else np.float32(n) / np.float32(out)
        idx = np.minimum(np.floor(o.astype(np.float32) * scale).astype(np.int64), n - 1)
        return np.take(x, idx, axis=axis)
    if align:
        src = o * ((n - 1) / (out - 1) if out > 1 else 0.0)
    else:
        scale = 1.0 / factor if factor else n / out
        src = np.maximum((o + 0.5) * scale - 0.5, 0)
    lo = np.floor(src).astype(np.int64)
    hi = np.minimum(lo + 1, n - 1)
    far = src - lo
    shape = [1] * x.ndim
    shape[axis] = out
    far = far.reshape(shape)
    return np.take(x, lo, axis=axis) * (1 - far) + np.take(x, hi, axis=axis) * far
ix = f32(2, 3, 5, 4)
for size, factor, mode, align in [([7, 9], None, "nearest", None), ([3, 2], None, "nearest", None),
                                  (None, 2.0, "nearest", None), (None, 1.5, "nearest", None),
                                  ([8, 6], None, "bilinear", False), ([3, 7], None, "bilinear", True),
                                  ([1, 1], None, "bilinear", True), (None, 2.0, "bilinear", False)]:
    h, w = size if size else [int(np.floor(5 * factor)), int(np.floor(4 * factor))]
    y = resample(resample(d(ix), 2, h, factor, mode, align), 3, w, factor, mode, align)
    args = {"mode": mode}
    if size:
        args["size"] = size
    else:
        args["scale_factor"] = factor
    if align is not None:
        args["align_corners"] = align
    case("interpolate", [ix], y.astype(np.float32), **args)

# conv_transpose2d by its definition: each input pixel scatters the kernel
# (taps dilation apart) into the output at i * stride - padding.
def conv_transpose_ref(x, w, b, stride, pad, extra, groups, dil):
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    cg = c // groups
    ho = (h - 1) * stride[0] - 2 * pad[0] + dil[0] * (kh - 1) + extra[0] + 1
    wo = (wd - 1) * stride[1] - 2 * pad[1] + dil[1] * (kw - 1) + extra[1] + 1
    out = np.zeros((n, og * groups, ho, wo))
    for g in range(groups):
        for ci in range(cg):
            for iy in range(h):
                for ix in range(wd):
                    for ky in range(kh):
                        for kx in range(kw):
                            oy = iy * stride[0] - pad[0] + ky * dil[0]
                            ox = ix * stride[1] - pad[1] + kx * dil[1]
                            if 0 <= oy < ho and 0 <= ox < wo:
                                out[:, g * og:(g + 1) * og, oy, ox] += (
                                    d(x[:, g * cg + ci, iy, ix])[:, None] *
                                    d(w[g * cg + ci, :, ky, kx])[None, :])
    if b is not None:
        out += d(b).reshape(1, -1, 1, 1)
    return out.astype(np.float32)
for xs, ws, stride, pad, extra, groups, dil in [
        ((2, 3, 4, 5), (3, 2, 3, 3), [2, 2], [1, 1], [1, 1], 1, [1, 1]),
        ((1, 4, 3, 3), (4, 3, 4, 4), [2, 2], [1, 1], [0, 0], 1, [1, 1]),
        ((1, 4, 5, 4), (4, 1, 3, 2), [1, 3], [2, 0], [0, 2], 2, [2, 1]),
        ((2, 2, 3, 3), (2, 2, 3, 3), [1, 1], [0, 0], [0, 0], 1, [1, 1]),
        ((1, 2, 5, 5), (2, 3, 2, 2), [2, 2], [2, 2], [1, 0], 1, [1, 1])]:
    v, w, bias = f32(*xs), f32(*ws), f32(ws[1] * groups)
    case("conv_transpose2d", [v, w, bias],
         conv_transpose_ref(v, w, bias, stride, pad, extra, groups, dil),
         stride=stride, padding=pad, output_padding=extra, groups=groups, dilation=dil)

# rand and randint: kiln's generator, SplitMix64 of (seed, index), the top
# 53 bits as a double in [0, 1) (scripts/kiln_generator.py).
for shape, seed in [([3, 4], 7), ([5], 2 ** 63 + 5), ([2, 1, 3], 0)]:
    case("rand", [], unit_draws(shape, seed).astype(np.float32), shape=shape, seed=seed)
for low, high, shape, seed in [(-3, 4, [4, 3], 11), (0, 10, [7], 5), (100, 101, [3], 1)]:
    u = unit_draws(shape, seed)
    case("randint", [], (np.floor(u * (high - low)) + low).astype(np.int64),
         low=low, high=high, shape=shape, seed=seed)

# cumsum, cumprod (double accumulation, as ATen on the CPU; ints to int64),
# topk (values best first, NaN the largest, ties by index: a stable sort of
# the negated keys), scatter_add (np.add.at adds in index order).
cx = f32(3, 5, 4)
for dim in [0, 1, -1]:
    case("cumsum", [cx], np.cumsum(d(cx), axis=dim).astype(np.float32), dim=dim)
    case("cumprod", [cx], np.cumprod(d(cx), axis=dim).astype(np.float32), dim=dim)
ci = rng.integers(-1000, 1000, size=(4, 6)).astype(np.int32)
case("cumsum", [ci], np.cumsum(ci.astype(np.int64), axis=1), dim=1)
case("cumprod", [ci], np.cumprod(ci.astype(np.int64), axis=0), dim=0)
def topk_ref(x, k, dim, largest):
    x = np.moveaxis(np.asarray(x), dim, -1)
    idx = np.empty(x.shape[:-1] + (k,), dtype=np.int64)
    for pos in np.ndindex(*x.shape[:-1]):
        row = list(range(x.shape[-1]))
        def key(j):
            v = x[pos + (j,)]
            if np.isnan(v):
                return (0 if largest else 1, 0.0, j)
            return (1 if largest else 0, -float(v) if largest else float(v), j)
        row.sort(key=key)
        idx[pos] = row[:k]
    vals = np.take_along_axis(x, idx, -1)
    return np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)
tx = f32(4, 7)
tx[1, 2] = np.nan
tx[2, 3] = tx[2, 5]  # a tie
for k, dim, largest in [(3, 1, True), (7, -1, False), (2, 0, True), (0, 1, True)]:
    v, i = topk_ref(tx, k, dim, largest)
    case("topk", [tx], v, k=k, dim=dim, largest=largest, part=0)
    case("topk", [tx], i, k=k, dim=dim, largest=largest, part=1)
ti = rng.integers(0, 4, size=(3, 8)).astype(np.int64)
v, i = topk_ref(ti, 5, 1, True)
case("topk", [ti], i, k=5, dim=1, largest=True, part=1)
sx = f32(5, 3)
sidx = rng.integers(0, 5, size=(4, 3)).astype(np.int64)
ssrc = f32(6, 3)
expected = d(sx).copy()
for pos in np.ndindex(*sidx.shape):
    expected[sidx[pos], pos[1]] += ssrc[pos]
case("scatter_add", [sx, sidx, ssrc], expected.astype(np.float32), dim=0)
sxi = rng.integers(-9, 9, size=(2, 6)).astype(np.int64)
sidx2 = rng.integers(0, 6, size=(2, 9)).astype(np.int64)
ssrc2 = rng.integers(-9, 9, size=(2, 9)).astype(np.int64)
expected = sxi.copy()
for pos in np.ndindex(*sidx2.shape):
    expected[pos[0], sidx2[pos]] += ssrc2[pos]
case("scatter_add", [sxi, sidx2, ssrc2], expected, dim=1)

out = os.path.join(os.path.dirname(__file__), "..", "test", "unit", "fixtures",
                   "ops.json")
with open(out, "w") as f:
    json.dump({"generator": "scripts/gen_fixtures.py", "numpy": np.__version__,
               "cases": cases}, f, indent=None, separators=(",", ":"))
    f.write("\n")
print(f"wrote {len(cases)} cases to {os.path.normpath(out)}")
