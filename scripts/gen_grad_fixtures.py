#!/usr/bin/env python3
"""Writes torch's training references for the unit tests:

- test/unit/fixtures/train.json: a small GPT-2 with closed-form weights
  (TrainingTest.cpp builds the same one) trained by AdamW and by SGD, each
  step's loss;
- and adds torch's gradients to test/unit/fixtures/ops.json (written by
scripts/gen_fixtures.py): for each case of a differentiable op, an upstream
gradient ("grad_out", standard normal, the output's shape) and the gradient
torch's autograd computes for each floating input ("grads", null for the
others), in float64 from the case's inputs. test/unit/Runtime/FixtureTest
runs kiln's autograd on the same inputs and compares.

PyTorch is needed only to regenerate the file, never to build or test:
`bash benchmarks/torch_env.sh && build/torch-env/bin/python
scripts/gen_grad_fixtures.py` (after gen_fixtures.py, which drops them).
"""
import json
import math
import os

import numpy as np
import torch
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(20261127)


def tensor(j):
    dtype = {"float32": torch.float64, "float64": torch.float64,
             "int64": torch.int64, "int32": torch.int32, "bool": torch.bool}
    data = [float(v) if isinstance(v, str) else v for v in j["data"]]
    return torch.tensor(data, dtype=dtype[j["dtype"]]).reshape(j["shape"])


def number(v):
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def arr(t):
    t = t.detach().to(torch.float64)
    return {"shape": list(t.shape), "dtype": "float64",
            "data": [number(float(v)) for v in t.reshape(-1)]}


def dims(a):
    return a["dims"] if a["dims"] else None


def norm(x, a):
    p = a["p"]
    p = float(p) if isinstance(p, str) else p
    return torch.linalg.vector_norm(x, ord=p, dim=dims(a), keepdim=a["keepdim"])


def pick(result, a):
    return result[a.get("part", 0)] if isinstance(result, tuple) else result


UNARY = {
    "abs": torch.abs, "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt,
    "rsqrt": torch.rsqrt, "tanh": torch.tanh, "sigmoid": torch.sigmoid,
    "relu": torch.relu, "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "silu": F.silu,
    "neg": torch.neg, "sin": torch.sin, "cos": torch.cos, "tan": torch.tan,
    "atan": torch.atan, "erf": torch.erf, "erfc": torch.erfc,
    "log1p": torch.log1p, "expm1": torch.expm1, "log2": torch.log2,
    "exp2": torch.exp2, "reciprocal": torch.reciprocal, "softplus": F.softplus,
    "mish": F.mish, "hardswish": F.hardswish, "hardsigmoid": F.hardsigmoid,
    "floor": torch.floor, "ceil": torch.ceil, "round": torch.round,
    "trunc": torch.trunc, "square": torch.square, "sign": torch.sign,
}

OPS = {
    "add": lambda i, a: i[0] + i[1],
    "sub": lambda i, a: i[0] - i[1],
    "mul": lambda i, a: i[0] * i[1],
    "div": lambda i, a: i[0] / i[1],
    "pow": lambda i, a: torch.pow(i[0], i[1]),
    "maximum": lambda i, a: torch.maximum(i[0], i[1]),
    "minimum": lambda i, a: torch.minimum(i[0], i[1]),
    "maximum_scalar": lambda i, a: torch.maximum(
        i[0], torch.tensor(a["value"], dtype=i[0].dtype)),
    "minimum_scalar": lambda i, a: torch.minimum(
        i[0], torch.tensor(a["value"], dtype=i[0].dtype)),
    "where": lambda i, a: torch.where(i[0], i[1], i[2]),
    "leaky_relu": lambda i, a: F.leaky_relu(i[0], a["slope"]),
    "elu": lambda i, a: F.elu(i[0], a["alpha"]),
    "clamp": lambda i, a: torch.clamp(i[0], a.get("min"), a.get("max")),
    "var": lambda i, a: torch.var(i[0], dims(a), correction=a["correction"],
                                  keepdim=a["keepdim"]),
    "std": lambda i, a: torch.std(i[0], dims(a), correction=a["correction"],
                                  keepdim=a["keepdim"]),
    "logsumexp": lambda i, a: torch.logsumexp(
        i[0], a["dims"] if a["dims"] else list(range(i[0].dim())),
        keepdim=a["keepdim"]),
    "norm": lambda i, a: norm(i[0], a),
    "masked_fill": lambda i, a: i[0].masked_fill(i[1], a["value"]),
    "tril": lambda i, a: torch.tril(i[0], a["diagonal"]),
    "triu": lambda i, a: torch.triu(i[0], a["diagonal"]),
    "stack": lambda i, a: torch.stack(i, a["dim"]),
    "narrow": lambda i, a: torch.narrow(i[0], a["dim"], a["start"],
                                        a["length"]),
    "select": lambda i, a: torch.select(i[0], a["dim"], a["index"]),
    "bmm": lambda i, a: torch.bmm(i[0], i[1]),
    "addmm": lambda i, a: torch.addmm(i[0], i[1], i[2], beta=a["beta"],
                                      alpha=a["alpha"]),
    "baddbmm": lambda i, a: torch.baddbmm(i[0], i[1], i[2], beta=a["beta"],
                                          alpha=a["alpha"]),
    "group_norm": lambda i, a: F.group_norm(
        i[0], a["groups"], i[1] if len(i) > 1 else None,
        i[2] if len(i) > 2 else None, a["eps"]),
    "instance_norm": lambda i, a: F.instance_norm(
        i[0], weight=i[1] if len(i) > 1 else None,
        bias=i[2] if len(i) > 2 else None, eps=a["eps"]),
    "conv1d": lambda i, a: F.conv1d(
        i[0], i[1], i[2] if len(i) > 2 else None, a["stride"], a["padding"],
        a.get("dilation", 1), a.get("groups", 1)),
    "max": lambda i, a: (torch.max(i[0]) if "dim" not in a else
                         pick(torch.max(i[0], a["dim"], a["keepdim"]), a)),
    "min": lambda i, a: (torch.min(i[0]) if "dim" not in a else
                         pick(torch.min(i[0], a["dim"], a["keepdim"]), a)),
    "cumsum": lambda i, a: torch.cumsum(i[0], a["dim"]),
    "cumprod": lambda i, a: torch.cumprod(i[0], a["dim"]),
    "topk": lambda i, a: pick(torch.topk(i[0], a["k"], a["dim"],
                                         a["largest"]), a),
    "scatter_add": lambda i, a: i[0].scatter_add(a["dim"], i[1], i[2]),
    "gather": lambda i, a: torch.gather(i[0], a["dim"], i[1]),
    "index_select": lambda i, a: torch.index_select(i[0], a["dim"], i[1]),
    "flip": lambda i, a: torch.flip(i[0], a["dims"]),
    "roll": lambda i, a: torch.roll(i[0], a["shifts"], a["dims"] or None),
    "repeat": lambda i, a: i[0].repeat(*a["reps"]),
    "tile": lambda i, a: torch.tile(i[0], a["reps"]),
    "unflatten": lambda i, a: i[0].unflatten(a["dim"], a["sizes"]),
    "pad": lambda i, a: F.pad(i[0], a["pads"], a["mode"],
                              a["value"] if a["mode"] == "constant" else None),
    "chunk": lambda i, a: torch.chunk(i[0], a["chunks"], a["dim"])[a["piece"]],
    "split": lambda i, a: torch.split(
        i[0], a["sizes"] if "sizes" in a else a["size"], a["dim"])[a["piece"]],
    "dropout": lambda i, a: F.dropout(i[0], a["p"], training=False),
    "batch_norm": lambda i, a: F.batch_norm(
        i[0], i[1], i[2], i[3] if len(i) > 3 else None,
        i[4] if len(i) > 4 else None, False, 0.1, a["eps"]),
    "scaled_dot_product_attention": lambda i, a: F.scaled_dot_product_attention(
        i[0], i[1], i[2], i[3] if len(i) > 3 else None,
        is_causal=a["is_causal"], scale=a["scale"]),
    "lerp": lambda i, a: torch.lerp(i[0], i[1], a["weight"]),
    "sum": lambda i, a: (torch.sum(i[0], dims(a), keepdim=a["keepdim"])
                         if a["dims"] else
                         torch.sum(i[0], list(range(i[0].dim())),
                                   keepdim=a["keepdim"])),
    "mean": lambda i, a: torch.mean(i[0], a["dims"] or list(range(i[0].dim())),
                                    keepdim=a["keepdim"]),
    "amax": lambda i, a: torch.amax(i[0], a["dims"] or list(range(i[0].dim())),
                                    keepdim=a["keepdim"]),
    "amin": lambda i, a: torch.amin(i[0], a["dims"] or list(range(i[0].dim())),
                                    keepdim=a["keepdim"]),
    "prod": lambda i, a: prod(i[0], a),
    "softmax": lambda i, a: torch.softmax(i[0], a["dim"]),
    "log_softmax": lambda i, a: torch.log_softmax(i[0], a["dim"]),
    "layer_norm": lambda i, a: F.layer_norm(i[0], i[1].shape, i[1], i[2],
                                            a["eps"]),
    "rms_norm": lambda i, a: F.rms_norm(i[0], i[1].shape, i[1], a["eps"]),
    "matmul": lambda i, a: torch.matmul(i[0], i[1]),
    "linear": lambda i, a: F.linear(i[0], i[1], i[2]),
    "embedding": lambda i, a: F.embedding(i[0], i[1]),
    "conv2d": lambda i, a: F.conv2d(i[0], i[1], i[2], a["stride"],
                                    a["padding"], a.get("dilation", 1),
                                    a.get("groups", 1)),
    "max_pool2d": lambda i, a: F.max_pool2d(i[0], a["kernel"],
                                            a["stride"] or None,
                                            a["padding"], a["dilation"],
                                            a["ceil_mode"]),
    "avg_pool2d": lambda i, a: F.avg_pool2d(i[0], a["kernel"],
                                            a["stride"] or None,
                                            a["padding"], a["ceil_mode"],
                                            a["count_include_pad"],
                                            a.get("divisor")),
    "conv_transpose2d": lambda i, a: F.conv_transpose2d(
        i[0], i[1], i[2], a["stride"], a["padding"], a["output_padding"],
        a["groups"], a["dilation"]),
    "interpolate": lambda i, a: F.interpolate(
        i[0], size=a.get("size"), scale_factor=a.get("scale_factor"),
        mode=a["mode"], align_corners=a.get("align_corners")),
    "einsum": lambda i, a: torch.einsum(a["equation"], *i),
    "adaptive_avg_pool2d": lambda i, a: F.adaptive_avg_pool2d(
        i[0], a["output_size"]),
    "cat": lambda i, a: torch.cat(i, a["dim"]),
    "cross_entropy": lambda i, a: F.cross_entropy(i[0], i[1]),
}


def prod(x, a):
    dims_ = a["dims"] or list(range(x.dim()))
    out = x
    for d in sorted([d % max(x.dim(), 1) for d in dims_], reverse=True):
        out = torch.prod(out, d, keepdim=True)
    if not a["keepdim"]:
        shape = [s for k, s in enumerate(x.shape)
                 if k not in [d % max(x.dim(), 1) for d in dims_]]
        out = out.reshape(shape)
    return out


def main():
    path = os.path.join(os.path.dirname(__file__), "..", "test", "unit",
                        "fixtures", "ops.json")
    with open(path) as f:
        fixtures = json.load(f)
    added = 0
    for case in fixtures["cases"]:
        op = case["op"]
        case.pop("grad_out", None)
        case.pop("grads", None)
        fn = OPS.get(op) or (UNARY.get(op) and
                             (lambda i, a, f=UNARY[op]: f(i[0])))
        if fn is None or case["expected"]["dtype"] not in ("float32",
                                                           "float64"):
            continue
        inputs = [tensor(j) for j in case["inputs"]]
        if op == "topk" and inputs[0].unique().numel() < inputs[0].numel():
            continue  # ties: torch's order among them is its own
        for k, t in enumerate(inputs):
            # batch_norm's running statistics are buffers, not differentiated.
            if t.is_floating_point() and not (op == "batch_norm" and k in (1, 2)):
                t.requires_grad_()
        wanted = [t for t in inputs if t.requires_grad]
        if not wanted:
            continue
        out = fn(inputs, case["args"])
        grad_out = torch.from_numpy(rng.standard_normal(tuple(out.shape)))
        try:
            grads = torch.autograd.grad(out, wanted, grad_out,
                                        allow_unused=True)
        except RuntimeError as e:
            # torch's own limits (scatter_add with an index smaller than
            # src): no reference, so no gradient case.
            print(f"skipped {op} {case['args']}: {str(e).splitlines()[0]}")
            continue
        it = iter(grads)
        case["grad_out"] = arr(grad_out)
        case["grads"] = []
        for t in inputs:
            g = next(it) if t.requires_grad else None
            if t.requires_grad and g is None:
                g = torch.zeros_like(t)
            case["grads"].append(arr(g) if g is not None else None)
        added += 1
    fixtures["gradients"] = "scripts/gen_grad_fixtures.py, torch " + \
        torch.__version__
    with open(path, "w") as f:
        json.dump(fixtures, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"added torch gradients to {added} cases of {os.path.normpath(path)}")


def closed_form(shape, phase, scale, shift=0.0):
    """TrainingTest.cpp's closedForm: scale * sin(0.731 i + phase) + shift."""
    i = np.arange(int(np.prod(shape)), dtype=np.float64)
    v = (np.sin(i * 0.731 + phase) * scale + shift).astype(np.float32)
    return torch.from_numpy(v.reshape(shape))


def train_fixture():
    cfg = dict(L=2, C=32, NH=4, V=64, maxT=16, B=2, T=16)
    L, C, NH, V, T, B = (cfg[k] for k in ("L", "C", "NH", "V", "T", "B"))
    phase = [0.0]

    def nxt(shape, scale, shift=0.0):
        phase[0] += 1.0
        return torch.nn.Parameter(closed_form(shape, phase[0], scale, shift))

    ids = torch.tensor([(7 * i + 3) % V for i in range(B * T)]).view(B, T)
    targets = torch.tensor([(5 * i + 11) % V for i in range(B * T)]).view(B, T)
    runs = []
    for name in ("adamw", "sgd"):
        phase[0] = 0.0
        wte, wpe = nxt((V, C), 0.1), nxt((cfg["maxT"], C), 0.05)
        layers = [[nxt((C,), 0.1, 1.0), nxt((C,), 0.02),
                   nxt((3 * C, C), 0.1), nxt((3 * C,), 0.02),
                   nxt((C, C), 0.1), nxt((C,), 0.02),
                   nxt((C,), 0.1, 1.0), nxt((C,), 0.02),
                   nxt((4 * C, C), 0.1), nxt((4 * C,), 0.02),
                   nxt((C, 4 * C), 0.1), nxt((C,), 0.02)] for _ in range(L)]
        lnfw, lnfb = nxt((C,), 0.1, 1.0), nxt((C,), 0.02)
        params = [wte, wpe] + [p for l in layers for p in l] + [lnfw, lnfb]

        def loss_fn():
            x = F.embedding(ids, wte) + wpe[:T]
            for (l1w, l1b, qw, qb, pw, pb, l2w, l2b, fw, fb, f2w, f2b) in layers:
                qkv = F.linear(F.layer_norm(x, (C,), l1w, l1b), qw, qb)
                q, k, v = (t.view(B, T, NH, C // NH).transpose(1, 2)
                           for t in qkv.split(C, dim=2))
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                x = x + F.linear(y.transpose(1, 2).reshape(B, T, C), pw, pb)
                h = F.gelu(F.linear(F.layer_norm(x, (C,), l2w, l2b), fw, fb),
                           approximate="tanh")
                x = x + F.linear(h, f2w, f2b)
            logits = F.layer_norm(x, (C,), lnfw, lnfb) @ wte.t()
            return F.cross_entropy(logits.reshape(B * T, V), targets.reshape(-1))

        opt = (torch.optim.AdamW(params, lr=1e-2, weight_decay=0.1)
               if name == "adamw" else
               torch.optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True,
                               weight_decay=1e-3))
        losses = []
        for _ in range(6):
            opt.zero_grad()
            loss = loss_fn()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            losses.append(loss.item())
        runs.append({"optimizer": name, "losses": losses})
    path = os.path.join(os.path.dirname(__file__), "..", "test", "unit",
                        "fixtures", "train.json")
    with open(path, "w") as f:
        json.dump({"generator": "scripts/gen_grad_fixtures.py, torch " +
                   torch.__version__, "config": cfg, "runs": runs}, f, indent=1)
        f.write("\n")
    print(f"wrote {os.path.normpath(path)}: " +
          ", ".join(f"{r['optimizer']} {r['losses'][0]:.4f} -> "
                    f"{r['losses'][-1]:.4f}" for r in runs))


if __name__ == "__main__":
    main()
    train_fixture()
