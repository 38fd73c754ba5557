"""Writes torch's losses for the zoo's training runs: test/zoo/Inputs/train-losses.json.

The zoo programs (examples/zoo/*.cpp) draw their weights, inputs and
targets from kiln's generator (kiln::randn: SplitMix64 of (seed, index),
Box-Muller pairs, written out here from its definition), so the same models
are built here in torch, trained by torch's AdamW as the programs train
theirs, and each step's loss is recorded for the arguments the zoo's
*-train.test files run. test/zoo/Inputs/check_losses.py compares a
program's printed losses with them.

Run with a Python that has torch and numpy (benchmarks/ make such a
virtual environment): python scripts/gen_zoo_train_fixtures.py
"""
import json
import math
import os

import numpy as np
import torch
import torch.nn.functional as F

M64 = (1 << 64) - 1


def splitmix(seed, i):
    z = (seed + (i + 1) * 0x9e3779b97f4a7c15) & M64
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
    return z ^ (z >> 31)


def randn(shape, seed):
    """kiln::randn(shape, seed) in float32."""
    n = int(np.prod(shape))
    out = np.empty(n, dtype=np.float64)
    for i in range(0, n, 2):
        u1 = (splitmix(seed, i) >> 11) * 2.0 ** -53
        u2 = (splitmix(seed, i + 1) >> 11) * 2.0 ** -53
        r = math.sqrt(-2.0 * math.log(1.0 - u1))
        theta = 6.283185307179586 * u2
        out[i] = r * math.cos(theta)
        if i + 1 < n:
            out[i + 1] = r * math.sin(theta)
    return torch.from_numpy(out.astype(np.float32).reshape(shape))


def adamw(params):
    return torch.optim.AdamW(params, lr=1e-2, weight_decay=0.01)


def train(params, steps, loss_fn):
    """train_to_target.h's loop: each step's loss before its update."""
    for p in params:
        p.requires_grad_()
    opt = adamw(params)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def resnet(batch, size, steps):
    """examples/zoo/resnet.cpp: `resnet BATCH SIZE STEPS`."""
    seed = [1]

    def conv(cin, cout, k, stride):
        std = math.sqrt(2.0 / (cin * k * k))
        w = randn([cout, cin, k, k], seed[0]) * std
        b = randn([cout], seed[0] + 1) * 0.1
        seed[0] += 2
        return {"w": w, "b": b, "stride": stride, "padding": k // 2}

    classes = 10
    stem = conv(3, 8, 3, 1)
    blocks, width = [], 8
    for stage in (8, 16, 32):
        for b in range(2):
            stride = 2 if b == 0 and stage != width else 1
            block = {"conv1": conv(width, stage, 3, stride),
                     "conv2": conv(stage, stage, 3, 1)}
            if stride != 1 or width != stage:
                block["projection"] = conv(width, stage, 1, stride)
            blocks.append(block)
            width = stage
    fc_w = randn([classes, width], seed[0]) * (1.0 / math.sqrt(width))
    seed[0] += 1
    fc_b = torch.zeros(classes)
    images = randn([batch, 3, size, size], 1000)
    target = randn([batch, classes], 2000)

    def apply(c, x):
        return F.conv2d(x, c["w"], c["b"], c["stride"], c["padding"])

    def forward():
        x = F.relu(apply(stem, images))
        for block in blocks:
            h = apply(block["conv2"], F.relu(apply(block["conv1"], x)))
            shortcut = apply(block["projection"], x) if "projection" in block else x
            x = F.relu(h + shortcut)
        return F.linear(x.mean((2, 3)), fc_w, fc_b)

    params = [stem["w"], stem["b"], fc_w, fc_b] + [
        t for block in blocks for c in block.values() for t in (c["w"], c["b"])]
    return train(params, steps, lambda: ((forward() - target) ** 2).mean())


def moe(tokens, steps):
    """examples/zoo/moe.cpp: `moe TOKENS STEPS`."""
    width, hidden, n_experts = 16, 32, 4
    seed = [1]

    def normal(shape, std):
        t = randn(shape, seed[0]) * std
        seed[0] += 1
        return t

    router = normal([width, n_experts], 0.5)
    experts = [[normal([width, hidden], 0.2), normal([hidden], 0.1),
                normal([hidden, width], 0.2), normal([width], 0.1)]
               for _ in range(n_experts)]
    x = normal([tokens, width], 1.0)
    target = normal([tokens, width], 1.0)

    def loss_fn():
        gates = (x @ router).softmax(-1)
        y = torch.zeros(tokens, width)
        for e, (w1, b1, w2, b2) in enumerate(experts):
            y = y + gates[:, e:e + 1] * (F.silu(x @ w1 + b1) @ w2 + b2)
        importance = gates.mean(0)
        aux = (importance * importance).sum() * float(n_experts)
        return ((y - target) ** 2).mean() + 0.01 * aux

    return train([router] + [t for e in experts for t in e], steps, loss_fn)


def diffusion(samples, steps, train_steps):
    """examples/zoo/diffusion.cpp: `diffusion SAMPLES STEPS TRAIN`."""
    features, hidden = 16, 32
    seed = [1]

    def normal(shape, std):
        t = randn(shape, seed[0]) * std
        seed[0] += 1
        return t

    w1, b1 = normal([hidden, features], 0.25), normal([hidden], 0.1)
    w2, b2 = normal([features, hidden], 0.18), normal([features], 0.1)
    time_embedding = normal([steps, hidden], 0.5)
    product, cumprod = 1.0, []
    for t in range(steps):
        beta = 1e-4 + (0.02 - 1e-4) * t / (steps - 1)
        product *= 1.0 - beta
        cumprod.append(product)
    alphas_cumprod = torch.tensor(cumprod, dtype=torch.float64)
    data = randn([samples, features], 3000) * 0.5 + 1.0
    params = [w1, b1, w2, b2, time_embedding]
    for p in params:
        p.requires_grad_()
    opt = adamw(params)
    losses = []
    for i in range(train_steps):
        opt.zero_grad()
        t = (i * 5 + 3) % steps
        noise = randn([samples, features], 4000 + i)
        alpha_bar = alphas_cumprod[t:t + 1].to(torch.float32)
        xt = torch.sqrt(alpha_bar) * data + torch.sqrt(1.0 - alpha_bar) * noise
        h = F.silu(F.linear(xt, w1, b1) + time_embedding[t:t + 1])
        loss = ((F.linear(h, w2, b2) - noise) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def main():
    runs = {
        "resnet 3 10 4": resnet(3, 10, 4),
        "moe 7 4": moe(7, 4),
        "diffusion 5 7 6": diffusion(5, 7, 6),
    }
    path = os.path.join(os.path.dirname(__file__), "..", "test", "zoo",
                        "Inputs", "train-losses.json")
    with open(path, "w") as f:
        json.dump({"generator": "scripts/gen_zoo_train_fixtures.py, torch " +
                   torch.__version__, "runs": runs}, f, indent=1)
        f.write("\n")
    for run, losses in runs.items():
        print(f"{run}: " + " ".join(f"{l:.6f}" for l in losses))


if __name__ == "__main__":
    main()
