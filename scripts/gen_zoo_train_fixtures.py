#!/usr/bin/env python3
"""Writes torch's losses for the zoo's training runs: test/zoo/Inputs/train-losses.json.

The zoo programs (examples/zoo/*.cpp) draw their weights, inputs and
targets from kiln's generator (kiln::randn: SplitMix64 of (seed, index),
Box-Muller pairs; scripts/kiln_generator.py writes it out), so the same models
are built here in torch, trained by torch's AdamW as the programs train
theirs, and each step's loss is recorded for the arguments the zoo's
*-train.test files run. test/zoo/Inputs/check_losses.py compares a
program's printed losses with them.

Run in the benchmarks' virtual environment (torch, numpy):
`bash benchmarks/torch_env.sh && build/torch-env/bin/python
scripts/gen_zoo_train_fixtures.py`.
"""
import json
import math
import os

import numpy as np
import torch
import torch.nn.functional as F

from kiln_generator import normal_draws


def randn(shape, seed):
    """kiln::randn(shape, seed) in float32."""
    return torch.from_numpy(normal_draws(shape, seed).astype(np.float32))


def train(params, steps, loss_fn, lr=1e-2):
    """The programs' loop (train_to_target.h's, and the like): AdamW with
    weight decay 0.01, each step's loss (loss_fn(step)) before its update."""
    for p in params:
        p.requires_grad_()
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    losses = []
    for step in range(steps):
        opt.zero_grad()
        loss = loss_fn(step)
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
    return train(params, steps, lambda step: ((forward() - target) ** 2).mean())


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

    def loss_fn(step):
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

    def loss_fn(step):
        t = (step * 5 + 3) % steps
        noise = randn([samples, features], 4000 + step)
        alpha_bar = alphas_cumprod[t:t + 1].to(torch.float32)
        xt = torch.sqrt(alpha_bar) * data + torch.sqrt(1.0 - alpha_bar) * noise
        h = F.silu(F.linear(xt, w1, b1) + time_embedding[t:t + 1])
        return ((F.linear(h, w2, b2) - noise) ** 2).mean()

    return train([w1, b1, w2, b2, time_embedding], train_steps, loss_fn)


def gru(batch, steps, train_steps):
    """examples/zoo/gru.cpp: `gru BATCH STEPS TRAIN`."""
    n_in, hidden, out = 12, 24, 5
    seed = [1]

    def normal(shape, std):
        t = randn(shape, seed[0]) * std
        seed[0] += 1
        return t

    w_ih, w_hh = normal([3 * hidden, n_in], 0.2), normal([3 * hidden, hidden], 0.2)
    b_ih, b_hh = normal([3 * hidden], 0.1), normal([3 * hidden], 0.1)
    head = normal([hidden, out], 0.3)
    xs = normal([batch, steps, n_in], 1.0)
    target = randn([batch, out], 500)

    def forward():
        h = torch.zeros(batch, hidden)
        total = torch.zeros(batch, out)
        for t in range(steps):
            gi = F.linear(xs[:, t], w_ih, b_ih)
            gh = F.linear(h, w_hh, b_hh)
            r = torch.sigmoid(gi[:, :hidden] + gh[:, :hidden])
            z = torch.sigmoid(gi[:, hidden:2 * hidden] + gh[:, hidden:2 * hidden])
            n = torch.tanh(gi[:, 2 * hidden:] + r * gh[:, 2 * hidden:])
            h = (1.0 - z) * n + z * h
            total = total + h @ head
        return total / float(steps)

    return train([w_ih, w_hh, b_ih, b_hh, head], train_steps,
                 lambda step: ((forward() - target) ** 2).mean())


def llama(batch, tokens, steps):
    """examples/zoo/llama.cpp: `llama BATCH TOKENS STEPS`."""
    dim, n_heads, n_kv, hidden, max_seq = 64, 8, 2, 160, 64
    hd = dim // n_heads
    seed = [1]

    def linear(n_in, n_out):
        t = randn([n_out, n_in], seed[0]) * 0.05
        seed[0] += 1
        return t

    freq = [1.0 / 10000.0 ** (2.0 * i / hd) for i in range(hd // 2)]
    cos = torch.tensor([[math.cos(t * f) for f in freq] for t in range(max_seq)],
                       dtype=torch.float64).to(torch.float32)[:tokens]
    sin = torch.tensor([[math.sin(t * f) for f in freq] for t in range(max_seq)],
                       dtype=torch.float64).to(torch.float32)[:tokens]
    attention_norm, ffn_norm = torch.ones(dim), torch.ones(dim)
    wq, wk, wv = linear(dim, dim), linear(dim, n_kv * hd), linear(dim, n_kv * hd)
    wo = linear(dim, dim)
    w1, w2, w3 = linear(dim, hidden), linear(hidden, dim), linear(dim, hidden)
    x = randn([batch, tokens, dim], 100)
    target = randn([batch, tokens, dim], 500)

    def rotary(t):
        half = t.shape[-1] // 2
        t1, t2 = t[..., :half], t[..., half:2 * half]
        return torch.cat([t1 * cos - t2 * sin, t1 * sin + t2 * cos], -1)

    def attention(h):
        q = F.linear(h, wq).view(batch, tokens, n_heads, hd).transpose(1, 2)
        k = F.linear(h, wk).view(batch, tokens, n_kv, hd).transpose(1, 2)
        v = F.linear(h, wv).view(batch, tokens, n_kv, hd).transpose(1, 2)
        q, k = rotary(q), rotary(k)
        k = k.repeat_interleave(n_heads // n_kv, dim=1)
        v = v.repeat_interleave(n_heads // n_kv, dim=1)
        scores = q @ k.transpose(2, 3) / math.sqrt(hd)
        causal = torch.arange(tokens)[:, None] >= torch.arange(tokens)[None, :]
        scores = torch.where(causal, scores, -math.inf).softmax(-1)
        out = (scores @ v).transpose(1, 2).reshape(batch, tokens, dim)
        return F.linear(out, wo)

    def forward():
        h = x + attention(F.rms_norm(x, (dim,), attention_norm, 1e-5))
        f = F.rms_norm(h, (dim,), ffn_norm, 1e-5)
        return h + F.linear(F.silu(F.linear(f, w1)) * F.linear(f, w3), w2)

    return train([attention_norm, ffn_norm, wq, wk, wv, wo, w1, w2, w3], steps,
                 lambda step: ((forward() - target) ** 2).mean())


def encoder(batch, tokens, steps):
    """examples/zoo/encoder.cpp: `encoder BATCH TOKENS STEPS`."""
    vocab, hidden, heads, n_layers, max_positions = 80, 48, 4, 2, 64
    seed = [1]

    def normal(shape):
        t = randn(shape, seed[0]) * 0.05
        seed[0] += 1
        return t

    def linear(n_in, n_out):
        return [normal([n_out, n_in]), normal([n_out])]

    def norm():
        return [torch.ones(hidden), torch.zeros(hidden)]

    word, position, embedding_norm = normal([vocab, hidden]), normal([max_positions, hidden]), norm()
    layers = [{"query": linear(hidden, hidden), "key": linear(hidden, hidden),
               "value": linear(hidden, hidden), "output": linear(hidden, hidden),
               "attention_norm": norm(), "intermediate": linear(hidden, 4 * hidden),
               "out": linear(4 * hidden, hidden), "output_norm": norm()}
              for _ in range(n_layers)]
    real = [[t < max(1, tokens - b) for t in range(tokens)] for b in range(batch)]
    ids = torch.tensor([[(b * 13 + t * 7 + 1) % vocab if real[b][t] else 0
                         for t in range(tokens)] for b in range(batch)])
    mask = torch.tensor(real)
    target = randn([batch, hidden], 500)
    d = hidden // heads

    def forward():
        x = F.embedding(ids, word) + F.embedding(torch.arange(tokens), position)
        x = F.layer_norm(x, (hidden,), *embedding_norm, 1e-12)
        for l in layers:
            def split(t):
                return t.view(batch, tokens, heads, d).permute(0, 2, 1, 3)
            q, k, v = (split(F.linear(x, *l[n])) for n in ("query", "key", "value"))
            scores = q @ k.transpose(-1, -2) / math.sqrt(d)
            scores = torch.where(mask[:, None, None, :], scores, -1e9).softmax(-1)
            context = (scores @ v).permute(0, 2, 1, 3).reshape(batch, tokens, hidden)
            h = F.layer_norm(x + F.linear(context, *l["output"]), (hidden,),
                             *l["attention_norm"], 1e-12)
            x = F.layer_norm(h + F.linear(F.gelu(F.linear(h, *l["intermediate"])), *l["out"]),
                             (hidden,), *l["output_norm"], 1e-12)
        weights = mask.to(torch.float32).unsqueeze(-1)
        return (x * weights).sum(1) / weights.sum(1)

    params = [word, position] + embedding_norm + [
        t for l in layers for n in ("query", "key", "value", "output", "intermediate", "out")
        for t in l[n]] + [t for l in layers for n in ("attention_norm", "output_norm")
                          for t in l[n]]
    return train(params, steps, lambda step: ((forward() - target) ** 2).mean())


def gpt2(batch, tokens, steps):
    """examples/zoo/gpt2.cpp: `gpt2 BATCH TOKENS STEPS` (AdamW at 1e-3)."""
    vocab, n_embd, n_head, n_layer, block_size = 96, 64, 4, 3, 64
    seed = [1]

    def normal(shape, std):
        t = randn(shape, seed[0]) * std
        seed[0] += 1
        return t

    def linear(n_in, n_out):  # GPT-2's Conv1D: weight [in, out]
        return [normal([n_in, n_out], 0.02), torch.zeros(n_out)]

    def norm():
        return [torch.ones(n_embd), torch.zeros(n_embd)]

    wte, wpe, ln_f = normal([vocab, n_embd], 0.02), normal([block_size, n_embd], 0.01), norm()
    layers = [{"ln_1": norm(), "c_attn": linear(n_embd, 3 * n_embd),
               "attn_proj": linear(n_embd, n_embd), "ln_2": norm(),
               "c_fc": linear(n_embd, 4 * n_embd), "mlp_proj": linear(4 * n_embd, n_embd)}
              for _ in range(n_layer)]
    n = batch * tokens
    idx = torch.tensor([(i * 7 + 3) % vocab for i in range(n)]).view(batch, tokens)
    targets = torch.tensor([(i * 7 + 10) % vocab for i in range(n)]).view(batch, tokens)
    hs, C, T = n_embd // n_head, n_embd, tokens

    def lin(x, p):
        return x @ p[0] + p[1]

    def loss_fn(step):
        x = F.embedding(idx, wte) + F.embedding(torch.arange(T), wpe)
        for l in layers:
            qkv = lin(F.layer_norm(x, (C,), *l["ln_1"], 1e-5), l["c_attn"])
            q, k, v = (t.view(batch, T, n_head, hs).transpose(1, 2) for t in qkv.split(C, 2))
            att = q @ k.transpose(-2, -1) * (1.0 / math.sqrt(hs))
            causal = torch.arange(T)[:, None] >= torch.arange(T)[None, :]
            att = torch.where(causal, att, -math.inf).softmax(-1)
            x = x + lin((att @ v).transpose(1, 2).reshape(batch, T, C), l["attn_proj"])
            h = F.gelu(lin(F.layer_norm(x, (C,), *l["ln_2"], 1e-5), l["c_fc"]),
                       approximate="tanh")
            x = x + lin(h, l["mlp_proj"])
        logits = F.layer_norm(x, (C,), *ln_f, 1e-5) @ wte.t()
        return F.cross_entropy(logits.view(-1, vocab), targets.view(-1))

    params = [wte, wpe] + ln_f + [t for l in layers for p in l.values() for t in p]
    return train(params, steps, loss_fn, lr=1e-3)


def main():
    runs = {
        "resnet 3 10 4": resnet(3, 10, 4),
        "moe 7 4": moe(7, 4),
        "diffusion 5 7 6": diffusion(5, 7, 6),
        "gru 3 7 4": gru(3, 7, 4),
        "llama 3 9 4": llama(3, 9, 4),
        "encoder 3 7 4": encoder(3, 7, 4),
        "gpt2 2 9 4": gpt2(2, 9, 4),
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
