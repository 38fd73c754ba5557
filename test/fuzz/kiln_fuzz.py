#!/usr/bin/env python3
"""Kiln's differential tester: random valid model code, compiled vs eager.

    kiln_fuzz.py --count N --seed S --work DIR [options]

Generates N random compile roots from the seed (docs/testing.md): chains of
Kiln ops over one to four tensor inputs of every dtype, with broadcasting,
scalars of every kind, views, reductions, products, norms, host flags,
loops and out-parameters; with --train, training programs (the float32/64
inputs require grad but about a quarter left frozen, the compiled build
uses --autograd, and each input's gradient of a random weighting of the
outputs is compared too). The roots
are batched into translation units;
each unit is built as it is (eager) and through `kiln compile` (cpu), and
both programs run at the sizes the source names and at others. Each root
is classified:

  match        every value it returns or writes agrees with eager
  miscompile   a value differs (integers and bools exactly; floats within
               a tolerance scaled to the tensor's largest value)
  fallback     a graph call ran eagerly (a guard missed: silent fallback)
  nograd       (--train) a graph ran eagerly, saying so, because an op on
               the way has no gradient rule yet: a known gap, not a failure
  compile      `kiln compile` failed on the valid program
  crash        kiln or the compiled program died on a signal
  hang         a step ran past --timeout
  invalid      eager itself rejected the program (a generator defect)

A failing root is kept (DIR/failures/<kind>-<seed>-<n>.cpp) and, unless
--no-reduce, shrunk first: statements deleted and sizes simplified while
the same failure persists. Exits 1 when any root failed or was invalid
(nograd is neither).
"""
import argparse
import concurrent.futures
import math
import os
import random
import re
import shutil
import subprocess
import sys
import time

KINDS = ["match", "nograd", "miscompile", "fallback", "compile", "crash", "hang", "invalid"]

# Sizes of the symbolic dims N0..N2 for each run: the first set is the one
# the source names (main's defaults), the others are passed as arguments.
SIZE_SETS = [(3, 5, 4), (6, 2, 7), (1, 3, 1)]
SYMS = ["N0", "N1", "N2"]

FLOAT = ("f32", "f64", "f16", "bf16")
INT = ("i32", "i64")
CPP_DTYPE = {"f32": "kiln::kFloat32", "f64": "kiln::kFloat64", "f16": "kiln::kFloat16",
             "bf16": "kiln::kBFloat16",
             "i32": "kiln::kInt32", "i64": "kiln::kInt64", "bool": "kiln::kBool"}
# How coarse a float type rounds: float64 0, float32 1, halves 2.
LOWP = {"f32": 1, "f16": 2, "bf16": 2}
# Mantissa bits within which sums and products of grid values stay exact.
EXACT_BITS = {"f32": 22, "f64": 50, "f16": 9, "bf16": 6, "i32": 30, "i64": 60, "bool": 1}


def category(d):
    return 2 if d in FLOAT else (1 if d in INT else 0)


def promote_vals(v, w):
    """torch's result type of a binary op on tensors v and w: a 0-d tensor
    counts only when its category is higher than the dimensioned one's."""
    if (v.rank == 0) != (w.rank == 0):
        dims, zero = (w, v) if v.rank == 0 else (v, w)
        if category(zero.dtype) <= category(dims.dtype):
            return dims.dtype
    return promote(v.dtype, w.dtype)


def promote(a, b):
    """torch's result type of a binary op on two tensors with dims."""
    if a == b:
        return a
    order = ["bool", "i32", "i64", "f16", "bf16", "f32", "f64"]
    if a in FLOAT and b in FLOAT:
        if {a, b} == {"f16", "bf16"}:
            return "f32"
        return order[max(order.index(a), order.index(b))]
    if a in FLOAT:
        return a
    if b in FLOAT:
        return b
    return order[max(order.index(a), order.index(b))]


class Val:
    """A traced value: its C++ name, dtype, shape (dim names: N0..N2, a
    literal size, or a fresh D<k> of a size derived at run time) and, for
    exact values, a bound on their magnitude and grid (value = integer *
    2^-grid with |value| < 2^mag), None once rounding may have happened."""

    def __init__(self, name, dtype, shape, exact):
        self.name, self.dtype, self.shape, self.exact = name, dtype, tuple(shape), exact
        self.lowp = LOWP.get(dtype, 0)
        self.nonfinite = False  # may hold inf or NaN (never converted to an integer)
        self.member = False     # a member of the root's module, not a parameter

    @property
    def rank(self):
        return len(self.shape)


def exact_ok(dtype, exact):
    if not exact:
        return None
    mag, grid = exact
    return exact if mag + grid <= EXACT_BITS[dtype] else None


class Root:
    """One generated compile root: parameters, statements, outputs. A root
    is a free function, a method of a module struct whose members hold
    some of its tensors, or the struct's operator(); a second output is an
    out-parameter, a struct's field or a tuple's element."""

    def __init__(self, index):
        self.index = index
        self.name = "fuzz_%d" % index
        self.params = []      # Val (tensor inputs; members where p.member)
        self.flags = []       # names of bool host parameters
        self.lists = []       # (name, kind, dtype, shape, count): std::vector parameters
        self.steps = False    # whether it takes `int64_t steps` (a loop count)
        self.stmts = []       # (text, defined Val or None, used names)
        self.result = None    # Val returned
        self.out = None       # the second output's Val
        self.form = "fn"      # fn, method or functor
        self.ret = "out"      # how the second output leaves: out, struct or tuple
        self.train = False    # --train: gradients of its float32/64 inputs too
        self.frozen = set()   # --train: names of float inputs that do not require grad

    @property
    def module(self):
        return "Mod%d" % self.index

    @property
    def layer(self):
        """The root's own layer module (each model file has its own)."""
        return "Layer%d" % self.index

    def graphs(self):
        """A regex for the names of the root's graphs in the stitched source."""
        if self.form == "fn":
            return r"kiln_%s_\d+" % self.name
        return r"kiln_%s__%s_\d+" % (self.module, "operator__" if self.form == "functor" else self.name)

    def signature(self):
        parts = ["const Tensor &%s" % p.name for p in self.params if not p.member]
        parts += ["bool %s" % f for f in self.flags]
        parts += ["const std::vector<%s> &%s" % (self.layer if k == "layers" else "Tensor", n)
                  for n, k, _, _, _ in self.lists]
        if self.steps:
            parts.append("int64_t steps")
        if self.out is not None and self.ret == "out":
            parts.append("Tensor &out")
        return ", ".join(parts)

    def return_type(self):
        if self.out is None or self.ret == "out":
            return "Tensor"
        return "Res%d" % self.index if self.ret == "struct" else "std::tuple<Tensor, Tensor>"

    def source(self):
        fn = "operator()" if self.form == "functor" else self.name
        body = ["  " + s[0] for s in self.stmts]
        if self.out is not None and self.ret == "out":
            body.append("  out = %s;" % self.out.name)
        if self.out is not None and self.ret != "out":
            body.append("  return {%s, %s};" % (self.result.name, self.out.name))
        else:
            body.append("  return %s;" % self.result.name)
        const = " const" if self.form != "fn" else ""
        lines = []
        if any(k == "layers" for _, k, _, _, _ in self.lists):
            lines.append("struct %s {\n  Tensor w;\n  Tensor operator()(const Tensor &x) const "
                         "{ return (x * w).tanh() + x; }\n};" % self.layer)
        if self.out is not None and self.ret == "struct":
            lines.append("struct Res%d {\n  Tensor y;\n  Tensor aux;\n};" % self.index)
        head = ["KILN_COMPILE()", "%s %s(%s)%s {" % (self.return_type(), fn, self.signature(), const)]
        if self.form == "fn":
            return "\n".join(lines + head + body + ["}"])
        members = ["  Tensor %s;" % p.name for p in self.params if p.member]
        ind = lambda xs: ["  " + x for x in xs]
        return "\n".join(lines + ["struct %s {" % self.module] + members + ind(head) + ind(body) +
                         ["  }", "};"])

    def trained(self):
        """With --train, the inputs that require grad: the float32 and
        float64 ones (members too) but the frozen ones."""
        return [p for p in self.params if p.dtype in ("f32", "f64") and
                p.name not in self.frozen] if self.train else []

    def freeze(self, seed):
        """With --train, leaves about a quarter of the float inputs (never
        all of them) without requires_grad: a frozen layer or a data batch,
        whose gradients the compiled backward is told to skip."""
        floats = [p.name for p in self.params if p.dtype in ("f32", "f64")]
        r = random.Random(seed)
        self.frozen = {n for n in floats if r.random() < 0.25}
        if floats and len(self.frozen) == len(floats):
            self.frozen.discard(floats[0])

    def call(self, seed):
        """main's call of the root: inputs built where the call's types show.
        With --train, the float32/64 inputs require grad and, after the
        outputs, the gradient of a random weighting of the outputs reaches
        each of them (dumped as NAME.grad)."""
        lines = ["  try {"]
        args, members = [], []
        for i, p in enumerate(self.params):
            name = "%s_%s" % (self.name, p.name)
            lines.append("    Tensor %s = %s;" % (name, fill_expr(p, seed * 16 + i)))
            if p in self.trained():
                lines.append("    %s.requires_grad_();" % name)
            (members if p.member else args).append(name)
        args += ["%s" % ("true" if (seed + i) % 2 else "false") for i, _ in enumerate(self.flags)]
        for j, (n, kind, dtype, shape, count) in enumerate(self.lists):
            v = Val(n, dtype, shape, None)
            elems = [fill_expr(v, seed * 16 + 8 + 3 * j + k) for k in range(count)]
            if kind == "layers":
                elems = ["%s{%s}" % (self.layer, e) for e in elems]
            lines.append("    std::vector<%s> %s_%s{%s};" % (self.layer if kind == "layers" else "Tensor",
                                                           self.name, n, ", ".join(elems)))
            args.append("%s_%s" % (self.name, n))
        if self.steps:
            args.append("N0")
        if self.out is not None and self.ret == "out":
            lines.append("    Tensor out;")
            args.append("out")
        callee = self.name
        if self.form != "fn":
            lines.append("    const %s m{%s};" % (self.module, ", ".join(members)))
            callee = "m" if self.form == "functor" else "m.%s" % self.name
        call = "%s(%s)" % (callee, ", ".join(args))
        if self.out is not None and self.ret == "struct":
            lines.append("    %s res = %s;" % (self.return_type(), call))
            lines.append("    Tensor r = res.y, out = res.aux;")
        elif self.out is not None and self.ret == "tuple":
            lines.append("    auto [r, out] = %s;" % call)
        else:
            lines.append("    Tensor r = %s;" % call)
        lines.append('    dump("%s", r);' % self.name)
        if self.out is not None:
            lines.append('    dump("%s.out", out);' % self.name)
        if self.trained():
            outs = ["r"] + (["out"] if self.out is not None else [])
            lines.append("    Tensor loss = kiln::zeros({}, kiln::kFloat64);")
            for k, o in enumerate(outs):
                lines.append("    if (%s.requires_grad())\n      loss = loss + (%s.to(kiln::kFloat64) * "
                             "kiln::randn(%s.shape(), %d).to(kiln::kFloat64)).sum();"
                             % (o, o, o, seed * 4 + k))
            lines.append("    if (loss.requires_grad())\n      loss.backward();")
            for p in self.trained():
                name = "%s_%s" % (self.name, p.name)
                lines.append('    dump("%s.grad", %s.grad().defined() ? %s.grad() : '
                             'kiln::zeros(%s.shape(), %s.dtype()));'
                             % (self.name, name, name, name, name))
        lines.append("  } catch (const kiln::Error &e) {")
        lines.append('    std::printf("%s error %%s\\n", e.what());' % self.name)
        lines.append("  }")
        return "\n".join(lines)


def fill_expr(p, seed):
    """An input on a grid: multiples of 1/8 in [-4, 4], integers in [-8, 8],
    so that sums and products of inputs are exact and comparisons agree.
    Some inputs are views: a slice at an offset, or a transpose."""
    shape = list(p.shape)
    layout = getattr(p, "layout", None)
    if layout == "transpose":
        shape[-1], shape[-2] = shape[-2], shape[-1]
    elif layout == "slice":
        shape[-1] = "%s + 2" % shape[-1]
    dims = "{%s}" % ", ".join(shape)
    ints = "kiln::randint(-32, 33, %s, %d)" % (dims, seed)
    if p.dtype == "bool":
        e = "(%s > 0)" % ints
    elif p.dtype in INT:
        e = "kiln::randint(-8, 9, %s, %d, %s)" % (dims, seed, CPP_DTYPE[p.dtype])
    else:
        e = "(%s.to(%s) * 0.125)" % (ints, CPP_DTYPE[p.dtype])
    if layout == "transpose":
        return "%s.transpose(-1, -2)" % e
    if layout == "slice":
        return "%s.slice(-1, 1, %s + 1)" % (e, p.shape[-1])
    return e


class Generator:
    def __init__(self, seed, train=False):
        self.r = random.Random(seed)
        self.fresh = 0
        # In-place ops only in inference programs: a graph holding one has
        # no compiled backward (it runs eagerly when gradients are needed).
        self.train = train

    # -- helpers ----------------------------------------------------------
    def pick(self, seq):
        return self.r.choice(list(seq))

    def new_dim(self):
        self.fresh += 1
        return "D%d" % self.fresh

    def new_param(self, root, dtype, shape):
        v = Val("%s" % "abcd"[len(root.params)], dtype, shape,
                (5, 3) if dtype in FLOAT else ((4, 0) if dtype in INT else (1, 0)))
        if shape and self.r.random() < 0.15:
            v.layout = "transpose" if len(shape) >= 2 and self.r.random() < 0.5 else "slice"
        root.params.append(v)
        return v

    def define(self, root, dtype, shape, expr, uses, exact=None):
        """Appends `Tensor tN = expr;`, or returns None for an integer
        result that might overflow (undefined in eager's C++ loops)."""
        if dtype in INT and not exact_ok(dtype, exact):
            return None
        name = "t%d" % len(root.stmts)
        v = Val(name, dtype, shape, exact_ok(dtype, exact) if dtype != "bool" else (1, 0))
        # Rounded to float32 (1) or a half type (2) somewhere on the way:
        # compared with that type's tolerance.
        used = [u for u in self.values(root) if u.name in uses]
        v.lowp = max([LOWP.get(dtype, 0)] + [u.lowp for u in used])
        v.nonfinite = dtype in FLOAT and any(u.nonfinite for u in used)
        root.stmts.append(("Tensor %s = %s;" % (name, expr), v, uses))
        return v

    def values(self, root):
        return root.params + [s[1] for s in root.stmts if s[1] is not None]

    def random_shape(self, rank):
        shape = []
        for _ in range(rank):
            shape.append(self.pick(SYMS) if self.r.random() < 0.8 else self.pick(["1", "2", "3"]))
        return shape

    def broadcast_partner(self, root, v, dtype=None):
        """A tensor that broadcasts against v: an existing one or a new input."""
        dtype = dtype or v.dtype
        cands = [w for w in self.values(root) if w is not v and w.dtype == dtype
                 and broadcasts(w.shape, v.shape)]
        if cands and self.r.random() < 0.6:
            return self.pick(cands)
        if len(root.params) >= 4 or any(d.startswith("D") for d in v.shape):
            same = [w for w in self.values(root) if w.dtype == dtype and broadcasts(w.shape, v.shape)]
            return self.pick(same) if same else None
        # A new input: some leading dims dropped, some dims 1.
        shape = list(v.shape)
        if shape and self.r.random() < 0.3:
            shape = shape[self.r.randrange(len(shape) + 1):]
        shape = [("1" if self.r.random() < 0.25 else d) for d in shape]
        return self.new_param(root, dtype, shape)

    def scalar(self, dtype):
        if dtype in FLOAT or self.r.random() < 0.2:
            text, val = self.pick([("0.5f", 0.5), ("2.0f", 2.0), ("1.5", 1.5), ("-0.25f", -0.25),
                                   ("3", 3), ("-1", -1)])
        else:
            text, val = self.pick([("2", 2), ("3", 3), ("-1", -1), ("int64_t(5)", 5)])
        return text, val

    # -- ops ----------------------------------------------------------------
    def op(self, root, v):
        """One op on v (and maybe others); returns the new Val or None."""
        choices = [(self.unary, 6), (self.binary, 6), (self.scalar_op, 4), (self.compare, 2),
                   (self.reduce, 3), (self.view, 4), (self.norm, 2), (self.matmul, 2),
                   (self.cat, 1), (self.convert, 2), (self.where, 2), (self.scan, 1),
                   (self.host_flag, 1), (self.loop, 1), (self.index_op, 2), (self.host_code, 1),
                   (self.nn_op, 2), (self.topk, 1), (self.nonfinite, 1), (self.layers, 1),
                   (self.attention, 1)] + ([] if self.train else [(self.in_place, 2)])
        total = sum(w for _, w in choices)
        x = self.r.random() * total
        for fn, w in choices:
            x -= w
            if x < 0:
                return fn(root, v)
        return None

    def unary(self, root, v):
        if v.dtype == "bool":
            return self.define(root, "bool", v.shape, "%s.logical_not()" % v.name, [v.name])
        if v.dtype in INT:
            fn = self.pick(["abs", "neg", "square"])
            e = v.exact
            if fn == "square":
                e = e and (2 * e[0], 0)
                return self.define(root, v.dtype, v.shape, "%s.square()" % v.name, [v.name], e)
            text = "-%s" % v.name if fn == "neg" else "%s.abs()" % v.name
            return self.define(root, v.dtype, v.shape, text, [v.name], e)
        smooth = ["tanh", "sigmoid", "sin", "cos", "atan", "erf", "gelu", "silu", "softplus",
                  "mish", "hardswish", "hardsigmoid", "elu", "erfc", "expm1"]
        exact_fns = ["relu", "abs", "neg"]
        safe = [("(%s.abs() + 0.5f).log()", "log"), ("%s.abs().log1p()", "log1p"),
                ("(%s.abs() + 1.0f).sqrt()", "sqrt"), ("(%s.abs() + 1.0f).rsqrt()", "rsqrt"),
                ("%s.tanh().exp()", "exp"), ("(%s.abs() + 1.0f).reciprocal()", "reciprocal"),
                ("%s.sigmoid().exp2()", "exp2"), ("(%s.abs() + 1.0f).log2()", "log2"),
                ("%s.leaky_relu(0.1)", "leaky_relu"), ("kiln::gelu(%s, \"tanh\")", "gelu tanh"),
                ("%s.tanh().tan()", "tan")]
        discrete = ["floor", "ceil", "round", "trunc", "sign"]
        k = self.r.random()
        if k < 0.2:
            fn = self.pick(exact_fns)
            text = "-%s" % v.name if fn == "neg" else "%s.%s()" % (v.name, fn)
            return self.define(root, v.dtype, v.shape, text, [v.name], v.exact)
        if k < 0.3 and v.exact:
            fn = self.pick(discrete)
            return self.define(root, v.dtype, v.shape, "%s.%s()" % (v.name, fn), [v.name], v.exact)
        if k < 0.55:
            text = self.pick(safe)[0] % v.name
            return self.define(root, v.dtype, v.shape, text, [v.name])
        fn = self.pick(smooth)
        arg = v.name
        if fn in ("sin", "cos") and not (v.exact and v.exact[0] <= 3):
            # Periodic functions of large arguments amplify the rounding of
            # their input (float32's ulp at 1000 is 6e-5): keep them to
            # values of known small magnitude.
            arg = "%s.tanh()" % v.name
        text = "%s.%s()" % (arg, fn) if self.r.random() < 0.6 else "kiln::%s(%s)" % (fn, arg)
        return self.define(root, v.dtype, v.shape, text, [v.name])

    def binary(self, root, v):
        if v.dtype == "bool":
            w = self.broadcast_partner(root, v)
            if w is None:
                return None
            fn = self.pick(["logical_and", "logical_or"])
            return self.define(root, "bool", bshape(v.shape, w.shape),
                               "%s.%s(%s)" % (v.name, fn, w.name), [v.name, w.name])
        dtype = v.dtype
        if self.r.random() < 0.2:
            dtype = self.pick(("f32", "f64") + INT)
        w = self.broadcast_partner(root, v, dtype)
        if w is None:
            return None
        out = promote_vals(v, w)
        shape = bshape(v.shape, w.shape)
        a, b = (v, w) if self.r.random() < 0.7 else (w, v)
        op = self.pick(["+", "-", "*", "/", "maximum", "minimum", "pow", "lerp"])
        if op in "+-*":
            e = None
            if a.exact and b.exact:
                e = ((max(a.exact[0], b.exact[0]) + 1, max(a.exact[1], b.exact[1])) if op != "*"
                     else (a.exact[0] + b.exact[0], a.exact[1] + b.exact[1]))
            if op == "*" and out in INT and e and e[0] > EXACT_BITS[out]:
                op, e = "+", (max(a.exact[0], b.exact[0]) + 1, 0)
            return self.define(root, out, shape, "%s %s %s" % (a.name, op, b.name),
                               [a.name, b.name], e)
        if op in ("maximum", "minimum"):
            e = a.exact and b.exact and (max(a.exact[0], b.exact[0]), max(a.exact[1], b.exact[1]))
            text = ("kiln::%s(%s, %s)" if self.r.random() < 0.5 else "%s.%s(%s)")
            text = text % ((op, a.name, b.name) if text.startswith("kiln") else (a.name, op, b.name))
            return self.define(root, out, shape, text, [a.name, b.name], e)
        if out not in FLOAT:
            out = "f32"
        if op == "/":
            return self.define(root, out, shape, "%s / (%s.abs() + 1)" % (a.name, b.name),
                               [a.name, b.name])
        if op == "pow":
            if a.dtype not in FLOAT or b.dtype not in FLOAT:
                return None
            return self.define(root, promote_vals(a, b), shape,
                               "kiln::pow(%s.abs() + 0.5f, %s.tanh())" % (a.name, b.name),
                               [a.name, b.name])
        if a.dtype != b.dtype or a.dtype not in FLOAT:
            return None
        return self.define(root, a.dtype, shape, "%s.lerp(%s, 0.25)" % (a.name, b.name),
                           [a.name, b.name])

    def scalar_op(self, root, v):
        if v.dtype == "bool":
            return self.define(root, "bool", v.shape, "kiln::logical_not(%s)" % v.name, [v.name])
        text, val = self.scalar(v.dtype)
        is_float = "." in text
        out = v.dtype if (v.dtype in FLOAT or not is_float) else "f32"
        op = self.pick(["+", "-", "*", "r-", "clamp", "pow", "div"])
        e = None
        if v.exact:
            sg = 2 if val in (0.5, -0.25, 1.5) else 0
            e = (v.exact[0] + 1, max(v.exact[1], sg)) if op in "+-r-" else (v.exact[0] + 2, v.exact[1] + sg)
        if op == "r-":
            return self.define(root, out, v.shape, "%s - %s" % (text, v.name), [v.name], e)
        if op in "+-*":
            return self.define(root, out, v.shape, "%s %s %s" % (v.name, op, text), [v.name], e)
        if op == "clamp":
            lo = self.pick(["-1.0f", "std::nullopt", "0", "-2"])
            hi = self.pick(["1.0f", "std::nullopt", "3"]) if lo != "std::nullopt" else "1.5"
            out = v.dtype if v.dtype in FLOAT or ("." not in lo + hi) else "f32"
            return self.define(root, out, v.shape, "%s.clamp(%s, %s)" % (v.name, lo, hi), [v.name],
                               v.exact and (v.exact[0], max(v.exact[1], 1)))
        if op == "pow":
            if v.dtype not in FLOAT:
                return None
            p = self.pick(["2", "3", "0.5", "2.0f"])
            base = v.name if p in ("2", "3", "2.0f") else "(%s.abs() + 0.25f)" % v.name
            return self.define(root, v.dtype, v.shape, "kiln::pow(%s, %s)" % (base, p), [v.name],
                               v.exact and p in ("2", "2.0f") and (2 * v.exact[0], 2 * v.exact[1]) or None)
        out = v.dtype if v.dtype in FLOAT else "f32"
        return self.define(root, out, v.shape, "%s / %s" % (v.name, self.pick(["4.0f", "3", "0.3"])),
                           [v.name])

    def compare(self, root, v):
        if v.dtype == "bool" or not v.exact:
            return None
        op = self.pick(["<", "<=", ">", ">=", "==", "!="])
        if self.r.random() < 0.5:
            w = self.broadcast_partner(root, v, v.dtype if self.r.random() < 0.8 else
                                       self.pick(FLOAT + INT))
            if w is None or not w.exact:
                return None
            return self.define(root, "bool", bshape(v.shape, w.shape),
                               "%s %s %s" % (v.name, op, w.name), [v.name, w.name])
        s = self.pick(["0", "0.5f", "1", "-0.25"])
        return self.define(root, "bool", v.shape, "%s %s %s" % (v.name, op, s), [v.name])

    def reduce(self, root, v):
        if v.rank == 0:
            return None
        d = self.r.randrange(v.rank)
        dn = d - v.rank if self.r.random() < 0.4 else d
        keep = self.r.random() < 0.4
        shape = list(v.shape)
        if keep:
            shape[d] = "1"
        else:
            del shape[d]
        kb = "true" if keep else "false"
        if v.dtype == "bool":
            fn = self.pick(["any", "all"])
            return self.define(root, "bool", shape, "kiln::%s(%s, {%d}, %s)" % (fn, v.name, dn, kb),
                               [v.name])
        fn = self.pick(["sum", "mean", "amax", "amin", "argmax", "max", "var", "logsumexp",
                        "norm", "prod", "std"])
        if fn in ("amax", "amin", "argmax", "max") and v.shape[d].startswith("D"):
            fn = "sum"  # a slice's dim may be empty: these raise on it, sum does not
        if fn in ("sum", "amax", "amin"):
            e = v.exact and ((v.exact[0] + 3) if fn == "sum" else v.exact[0], v.exact[1])
            out = "i64" if (fn == "sum" and v.dtype in INT) else v.dtype
            return self.define(root, out, shape, "%s.%s({%d}, %s)" % (v.name, fn, dn, kb), [v.name], e)
        if fn in ("argmax", "max"):
            if not v.exact:
                return None
            if fn == "argmax":
                return self.define(root, "i64", shape, "%s.argmax(%d, %s)" % (v.name, dn, kb),
                                   [v.name], (4, 0))
            vals = self.define(root, v.dtype, shape, "std::get<0>(%s.max(%d, %s))" % (v.name, dn, kb),
                               [v.name], v.exact)
            return vals
        if v.dtype not in FLOAT:
            return None
        if fn == "prod":
            return self.define(root, v.dtype, shape, "%s.tanh().prod({%d}, %s)" % (v.name, dn, kb),
                               [v.name])
        if fn in ("var", "std"):
            return self.define(root, v.dtype, shape, "kiln::%s(%s, {%d}, %d, %s)" %
                               (fn, v.name, dn, self.pick([0, 1]) if fn == "std" else 0, kb), [v.name])
        if fn == "norm":
            return self.define(root, v.dtype, shape, "kiln::norm(%s, 2, {%d}, %s)" % (v.name, dn, kb),
                               [v.name])
        if fn == "logsumexp":
            return self.define(root, v.dtype, shape, "kiln::logsumexp(%s, {%d}, %s)" % (v.name, dn, kb),
                               [v.name])
        return self.define(root, v.dtype, shape, "%s.mean({%d}, %s)" % (v.name, dn, kb), [v.name])

    def view(self, root, v):
        r = v.rank
        k = self.pick(["transpose", "permute", "unsqueeze", "squeeze", "slice", "narrow", "select",
                       "flatten", "expand", "contiguous", "flip", "t"])
        s = list(v.shape)
        if k == "transpose" and r >= 2:
            i, j = self.r.sample(range(r), 2)
            s[i], s[j] = s[j], s[i]
            return self.define(root, v.dtype, s, "%s.transpose(%d, %d)" % (v.name, i - r * (i % 2), j),
                               [v.name], v.exact)
        if k == "t" and r == 2:
            return self.define(root, v.dtype, s[::-1], "%s.transpose(0, 1)" % v.name, [v.name], v.exact)
        if k == "permute" and r >= 2:
            p = list(range(r))
            self.r.shuffle(p)
            return self.define(root, v.dtype, [s[i] for i in p],
                               "%s.permute({%s})" % (v.name, ", ".join(map(str, p))), [v.name], v.exact)
        if k == "unsqueeze" and r < 4:
            d = self.r.randrange(r + 1)
            s.insert(d, "1")
            return self.define(root, v.dtype, s, "%s.unsqueeze(%d)" % (v.name, d), [v.name], v.exact)
        if k == "squeeze" and "1" in s:
            d = s.index("1")
            del s[d]
            return self.define(root, v.dtype, s, "%s.squeeze(%d)" % (v.name, d), [v.name], v.exact)
        whole = [i for i in range(r) if not s[i].startswith("D")]
        if k == "slice" and whole and self.r.random() < 0.3:
            # A window of one from a run-time start (a MoE's gate column,
            # `x.slice(1, e, e + 1)`): typed one wide, checked at run time.
            d = self.pick(whole)
            start = "w%d" % len(root.stmts)
            root.stmts.append(("const int64_t %s = %s.size(%d) / 2;" % (start, v.name, d),
                               None, [v.name]))
            s[d] = "1"
            return self.define(root, v.dtype, s, "%s.slice(%d, %s, %s + 1)" % (v.name, d, start, start),
                               [v.name], v.exact)
        if k == "slice" and r >= 1:
            d = self.r.randrange(r)
            start, step = self.pick([0, 1]), self.pick([1, 2])
            s[d] = self.new_dim()
            return self.define(root, v.dtype, s, "%s.slice(%d, %d, %s, %d)" %
                               (v.name, d, start, self.pick(["100", "%s.size(%d)" % (v.name, d)]), step),
                               [v.name], v.exact)
        # narrow(d, 0, 1), select and argmax need an element along d: not a
        # slice's dim, which may be empty.
        whole = [i for i in range(r) if not s[i].startswith("D")]
        if k == "narrow" and whole:
            d = self.pick(whole)
            s[d] = "1"
            return self.define(root, v.dtype, s, "%s.narrow(%d, 0, 1)" % (v.name, d), [v.name], v.exact)
        if k == "select" and whole:
            d = self.pick(whole)
            del s[d]
            idx = self.pick(["0", "-1"])
            return self.define(root, v.dtype, s, "%s.select(%d, %s)" % (v.name, d, idx), [v.name], v.exact)
        if k == "flatten" and r >= 2:
            return self.define(root, v.dtype, [self.new_dim()] if r else [],
                               "%s.flatten()" % v.name if self.r.random() < 0.5 else
                               "%s.reshape({-1})" % v.name, [v.name], v.exact)
        if k == "expand" and "1" in s:
            # To a size read off another tensor, as model code does.
            sources = [(w, i) for w in self.values(root) for i, dim in enumerate(w.shape)
                       if dim != "1"]
            if not sources:
                return None
            w, i = self.pick(sources)
            d = s.index("1")
            s[d] = w.shape[i]
            size = "%s.size(%d)" % (w.name, i)
            sizes = ", ".join("-1" if j != d else size for j in range(r))
            return self.define(root, v.dtype, s, "%s.expand({%s})" % (v.name, sizes),
                               [v.name, w.name], v.exact)
        if k == "flip" and r >= 1:
            d = self.r.randrange(r)
            return self.define(root, v.dtype, s, "%s.flip({%d})" % (v.name, d), [v.name], v.exact)
        if k == "contiguous":
            return self.define(root, v.dtype, s, "%s.contiguous()" % v.name, [v.name], v.exact)
        return None

    def norm(self, root, v):
        if v.dtype not in FLOAT or v.rank == 0:
            return None
        k = self.pick(["softmax", "log_softmax", "layer_norm", "rms_norm"])
        if k in ("softmax", "log_softmax"):
            d = self.r.randrange(v.rank) - (v.rank if self.r.random() < 0.5 else 0)
            return self.define(root, v.dtype, v.shape, "%s.%s(%d)" % (v.name, k, d), [v.name])
        last = v.shape[-1]
        if last.startswith("D") or len(root.params) >= 4:
            return None
        w = self.new_param(root, v.dtype, [last])
        if k == "rms_norm":
            return self.define(root, v.dtype, v.shape, "kiln::rms_norm(%s, %s)" % (v.name, w.name),
                               [v.name, w.name])
        bias = "Tensor()" if self.r.random() < 0.5 or len(root.params) >= 4 else \
            self.new_param(root, v.dtype, [last]).name
        return self.define(root, v.dtype, v.shape, "kiln::layer_norm(%s, %s, %s)" %
                           (v.name, w.name, bias), [v.name, w.name] + ([bias] if bias != "Tensor()" else []))

    def matmul(self, root, v):
        if v.dtype not in FLOAT or v.rank == 0 or v.shape[-1].startswith("D") or len(root.params) >= 4:
            return None
        m = self.pick(SYMS + ["2"])
        w = self.new_param(root, v.dtype, [v.shape[-1], m] if self.r.random() < 0.8 else [v.shape[-1]])
        shape = list(v.shape[:-1]) + ([m] if w.rank == 2 else [])
        text = self.pick(["kiln::matmul(%s, %s)", "%s.matmul(%s)"]) % (v.name, w.name)
        if w.rank == 2 and self.r.random() < 0.25:
            text = 'kiln::einsum("...c,cd->...d", {%s, %s})' % (v.name, w.name)
        if v.rank == 2 and w.rank == 2 and self.r.random() < 0.3 and len(root.params) < 4:
            b = self.new_param(root, v.dtype, [m])
            wt = "%s.transpose(0, 1)" % w.name
            return self.define(root, v.dtype, shape, "kiln::linear(%s, %s, %s)" % (v.name, wt, b.name),
                               [v.name, w.name, b.name])
        return self.define(root, v.dtype, shape, text, [v.name, w.name])

    def cat(self, root, v):
        if v.rank == 0:
            return None
        others = [w for w in self.values(root) if w.dtype == v.dtype and w.rank == v.rank]
        w = self.pick(others)
        d = self.r.randrange(v.rank)
        if any(a != b for i, (a, b) in enumerate(zip(v.shape, w.shape)) if i != d):
            return None
        s = list(v.shape)
        s[d] = self.new_dim()
        if self.r.random() < 0.3 and v.shape == w.shape and v.rank < 4:
            s = list(v.shape)
            s.insert(d, "2")
            return self.define(root, v.dtype, s, "kiln::stack({%s, %s}, %d)" % (v.name, w.name, d),
                               [v.name, w.name], v.exact and w.exact and v.exact)
        e = v.exact and w.exact and (max(v.exact[0], w.exact[0]), max(v.exact[1], w.exact[1]))
        return self.define(root, v.dtype, s, "kiln::cat({%s, %s}, %d)" % (v.name, w.name, d - v.rank),
                           [v.name, w.name], e)

    def convert(self, root, v):
        to = self.pick([d for d in FLOAT + INT + ("bool",) if d != v.dtype])
        if (to in INT or to == "bool") and not v.exact or to in INT and v.nonfinite:
            return None
        e = v.exact
        if to in INT and v.dtype in FLOAT:
            e = (v.exact[0], 0)
        if to == "f32" and v.exact and v.exact[0] + v.exact[1] > 22:
            e = None
        return self.define(root, to, v.shape, "%s.to(%s)" % (v.name, CPP_DTYPE[to]), [v.name], e)

    def where(self, root, v):
        conds = [w for w in self.values(root) if w.dtype == "bool" and broadcasts(w.shape, v.shape)]
        if not conds:
            if not v.exact or v.dtype == "bool":
                return None
            c = self.define(root, "bool", v.shape, "%s > 0" % v.name, [v.name])
        else:
            c = self.pick(conds)
        if self.r.random() < 0.4 and v.dtype != "bool":
            fill = self.pick(["0.0f", "-1.0f", "2"]) if v.dtype in FLOAT else "-3"
            return self.define(root, v.dtype, v.shape, "%s.masked_fill(%s, %s)" % (v.name, c.name, fill),
                               [v.name, c.name], v.exact and (max(v.exact[0], 2), v.exact[1]))
        w = self.broadcast_partner(root, v)
        if w is None:
            return None
        shape = bshape(bshape(v.shape, w.shape), c.shape)
        e = v.exact and w.exact and (max(v.exact[0], w.exact[0]), max(v.exact[1], w.exact[1]))
        return self.define(root, promote_vals(v, w), shape,
                           "kiln::where(%s, %s, %s)" % (c.name, v.name, w.name), [c.name, v.name, w.name], e)

    def scan(self, root, v):
        if v.rank == 0 or v.dtype == "bool":
            return None
        d = self.r.randrange(v.rank)
        if v.dtype in FLOAT and self.r.random() < 0.3:
            return self.define(root, v.dtype, v.shape, "%s.tanh().cumprod(%d)" % (v.name, d), [v.name])
        out = "i64" if v.dtype in INT else v.dtype
        e = v.exact and (v.exact[0] + 3, v.exact[1])
        return self.define(root, out, v.shape, "%s.cumsum(%d)" % (v.name, d), [v.name], e)

    def index_op(self, root, v):
        """Indexing with indices that are in range by construction (an
        argmax, a reversed arange), tril/triu/roll, pad of the last dim, and
        full_like/zeros_like/ones_like."""
        if v.rank >= 1 and self.r.random() < 0.5:
            return self.gather_op(root, v)
        if v.rank < 2:
            return None
        k = self.pick(["tril", "triu", "roll", "pad", "like"])
        if k == "pad":
            # reflect needs pads below the size, replicate a non-empty dim.
            last = v.shape[-1]
            mode = self.pick(["constant", "constant", "reflect", "replicate"])
            if mode == "reflect" and last not in ("2", "3"):
                mode = "replicate"
            if mode == "replicate" and last.startswith("D"):
                mode = "constant"
            pads = self.pick([(1, 0), (1, 1)] if mode == "reflect" else
                             [(1, 0), (0, 2), (1, 1), (2, 1)])
            fill = ""
            if mode == "constant" and self.r.random() < 0.5:
                fill = ", %s" % (self.pick(["0.5", "-2"]) if v.dtype in FLOAT else "3")
            s = list(v.shape)
            s[-1] = self.new_dim()
            return self.define(root, v.dtype, s, 'kiln::pad(%s, {%d, %d}, "%s"%s)' %
                               ((v.name,) + pads + (mode, fill)), [v.name],
                               v.exact and (max(v.exact[0], 2), v.exact[1]))
        if k == "like":
            text = self.pick(["kiln::zeros_like(%s)", "kiln::ones_like(%s)",
                              "kiln::full_like(%s, 2.5)", "kiln::full_like(%s, -3)"])
            return self.define(root, v.dtype, v.shape, text % v.name, [v.name])
        if k == "roll":
            d = self.r.randrange(v.rank)
            return self.define(root, v.dtype, v.shape, "%s.roll({%d}, {%d})" % (v.name, self.pick([1, -2]), d),
                               [v.name], v.exact)
        return self.define(root, v.dtype, v.shape, "%s.%s(%d)" % (v.name, k, self.pick([0, 1, -1])),
                           [v.name], v.exact)

    def gather_op(self, root, v):
        d = self.r.randrange(v.rank)
        k = self.pick(["gather", "index_select", "embedding", "scatter_add"])
        if k == "scatter_add" and v.exact and v.dtype != "bool" and \
                not v.shape[d].startswith("D"):
            # Adds the slice at 0 along d of a same-shaped value where
            # argmax points: each element gets at most one addition.
            srcs = [w for w in self.values(root) if w.dtype == v.dtype and w.shape == v.shape
                    and w.exact]
            src = self.pick(srcs) if srcs else v
            ix = self.pick(srcs) if srcs else v
            idx = "%s.argmax(%d, true)" % (ix.name, d)
            e = (max(v.exact[0], src.exact[0]) + 1, max(v.exact[1], src.exact[1]))
            text = self.pick(["%s.scatter_add(%d, %s, %s)" % (v.name, d, idx, src.name),
                              "kiln::scatter_add(%s, %d, %s, %s)" % (v.name, d, idx, src.name)])
            return self.define(root, v.dtype, v.shape, text, [v.name, src.name, ix.name], e)
        if k == "gather" and v.exact and v.dtype != "bool":
            s = list(v.shape)
            s[d] = "1"
            idx = "%s.argmax(%d, true)" % (v.name, d)
            return self.define(root, v.dtype, s, "%s.gather(%d, %s)" % (v.name, d, idx), [v.name],
                               v.exact)
        if k == "index_select":
            idx = "kiln::arange(%s.size(%d)).flip({0})" % (v.name, d)
            return self.define(root, v.dtype, v.shape, "%s.index_select(%d, %s)" % (v.name, d, idx),
                               [v.name], v.exact)
        # Rows of a new table picked by an argmax over v's last dim.
        last = v.shape[-1]
        if not v.exact or v.dtype == "bool" or last.startswith("D") or len(root.params) >= 4:
            return None
        table = self.new_param(root, self.pick(["f32", "f64"]), [last, self.pick(SYMS + ["2"])])
        ids = "%s.argmax(-1)" % v.name
        return self.define(root, table.dtype, list(v.shape[:-1]) + [table.shape[1]],
                           "kiln::embedding(%s, %s)" % (ids, table.name), [v.name, table.name],
                           table.exact)

    def topk(self, root, v):
        """topk's values or indices: ties come in index order in Kiln, so
        the indices of exact values are compared too."""
        if v.rank == 0 or v.dtype == "bool":
            return None
        d = self.r.randrange(v.rank)
        if v.shape[d].startswith("D"):
            return None  # a slice's dim may be empty: k = 1 is then out of range
        k = 2 if v.shape[d] in ("2", "3") and self.r.random() < 0.5 else 1
        largest = self.pick(["", ", %d, true" % d, ", %d, false" % d])
        dn = "" if largest == "" and d == v.rank - 1 else ", %d" % d
        call = "%s.topk(%d%s)" % (v.name, k, largest or dn) if self.r.random() < 0.6 else \
            "kiln::topk(%s, %d%s)" % (v.name, k, largest or dn)
        s = list(v.shape)
        s[d] = str(k)
        if v.exact and self.r.random() < 0.4:
            return self.define(root, "i64", s, "std::get<1>(%s)" % call, [v.name], (4, 0))
        return self.define(root, v.dtype, s, "std::get<0>(%s)" % call, [v.name], v.exact)

    def nn_op(self, root, v):
        """Convolutions, pooling and normalisations of a [N, C, H, W] or
        [C, H, W] (conv1d: [N, C, L]) value, with padding that keeps a
        spatial dim of 1 valid."""
        if v.dtype not in FLOAT or v.rank < 3 or any(x.startswith("D") for x in v.shape[-3:]):
            return None
        c = v.shape[-3]
        k = self.pick(["conv2d", "conv1d", "depthwise", "conv_transpose2d", "max_pool2d",
                       "avg_pool2d", "adaptive", "batch_norm", "group_norm"])
        free = 4 - len(root.params)
        if k == "conv1d" and v.rank == 3 and free >= 1:
            o, ks = self.pick(SYMS + ["2"]), self.pick([1, 3])
            w = self.new_param(root, v.dtype, [o, v.shape[1], str(ks)])
            return self.define(root, v.dtype, [v.shape[0], o, v.shape[2]],
                               "kiln::conv1d(%s, %s, Tensor(), 1, %d)" % (v.name, w.name, ks // 2),
                               [v.name, w.name])
        if k == "conv2d" and free >= 1:
            o, ks = self.pick(SYMS + ["2"]), self.pick([1, 3])
            w = self.new_param(root, v.dtype, [o, c, str(ks), str(ks)])
            b = self.new_param(root, v.dtype, [o]) if free >= 2 and self.r.random() < 0.5 else None
            s = list(v.shape)
            s[-3] = o
            return self.define(root, v.dtype, s, "kiln::conv2d(%s, %s, %s, 1, %d)" %
                               (v.name, w.name, b.name if b else "Tensor()", ks // 2),
                               [v.name, w.name] + ([b.name] if b else []))
        if k == "depthwise" and c in ("2", "3") and free >= 1:
            w = self.new_param(root, v.dtype, [c, "1", "3", "3"])
            return self.define(root, v.dtype, v.shape, "kiln::conv2d(%s, %s, Tensor(), {1}, {1}, {1}, %s)"
                               % (v.name, w.name, c), [v.name, w.name])
        if k == "conv_transpose2d" and free >= 1:
            # Stride 1, the padding (dilated) that keeps the size.
            o = self.pick(SYMS + ["2"])
            ks, pad, dil = self.pick([(1, 0, 1), (3, 1, 1), (3, 2, 2)])
            w = self.new_param(root, v.dtype, [c, o, str(ks), str(ks)])
            s = list(v.shape)
            s[-3] = o
            return self.define(root, v.dtype, s,
                               "kiln::conv_transpose2d(%s, %s, Tensor(), {1}, {%d}, {0}, 1, {%d})"
                               % (v.name, w.name, pad, dil), [v.name, w.name])
        if k == "max_pool2d":
            text = self.pick(["kiln::max_pool2d(%s, 3, 1, 1)", "kiln::max_pool2d(%s, {3, 1}, {1, 1}, {1, 0})"])
            return self.define(root, v.dtype, v.shape, text % v.name, [v.name], v.exact)
        if k == "avg_pool2d":
            inc = self.pick(["true", "false"])
            return self.define(root, v.dtype, v.shape, "kiln::avg_pool2d(%s, 3, 1, 1, false, %s)" %
                               (v.name, inc), [v.name])
        if k == "adaptive":
            o = self.pick([1, 2])
            s = list(v.shape[:-2]) + [str(o), str(o)]
            return self.define(root, v.dtype, s, "kiln::adaptive_avg_pool2d(%s, %d)" % (v.name, o),
                               [v.name])
        c = v.shape[1]  # the normalisations' channels: dim 1
        if c.startswith("D"):
            return None
        if k == "batch_norm" and free >= 2:
            mean = self.new_param(root, v.dtype, [c])
            var = self.new_param(root, v.dtype, [c])
            return self.define(root, v.dtype, v.shape, "kiln::batch_norm(%s, %s, %s.abs() + 0.5f)" %
                               (v.name, mean.name, var.name), [v.name, mean.name, var.name])
        if k == "group_norm":
            w = self.new_param(root, v.dtype, [c]) if free >= 1 and self.r.random() < 0.5 else None
            return self.define(root, v.dtype, v.shape, "kiln::group_norm(%s, 1%s)" %
                               (v.name, ", " + w.name if w else ""), [v.name] + ([w.name] if w else []))
        return None

    def attention(self, root, v):
        """Self-attention of v (its last two dims as queries/keys by
        features): scaled_dot_product_attention, or written out as model
        code writes it (which the CPU pipeline runs as the fused kernel):
        unscaled, scaled or divided, causal by masked_fill of a tril."""
        if v.dtype not in ("f32", "f64") or v.rank < 2 or v.nonfinite:
            return None
        n = v.name
        if self.r.random() < 0.5:
            causal = self.pick(["true", "false"])
            scale = self.pick(["", ", 0.5", ", 2.0"])
            text = "kiln::scaled_dot_product_attention(%s, %s, %s, Tensor(), 0.0, %s%s)" % (
                n, n, n, causal, scale)
        else:
            s = "kiln::matmul(%s, %s.transpose(-2, -1))" % (n, n)
            s = self.pick([s, "(%s * 0.25f)" % s, "(%s / 3.0f)" % s])
            if self.r.random() < 0.5:
                s = "%s.masked_fill(kiln::ones({%s.size(-2), %s.size(-2)}).tril() == 0, -INFINITY)" % (
                    s, n, n)
            text = "kiln::matmul(kiln::softmax(%s, -1), %s)" % (s, n)
        return self.define(root, v.dtype, v.shape, text, [n])

    def nonfinite(self, root, v):
        """inf, -inf or NaN where an exact value passes a bound: what
        follows must agree on IEEE semantics (NaN the max, inf - inf)."""
        if v.dtype not in FLOAT or not v.exact:
            return None
        fill = self.pick(["std::numeric_limits<double>::infinity()", "-INFINITY", "NAN",
                          "std::numeric_limits<float>::quiet_NaN()"])
        t = self.define(root, v.dtype, v.shape, "%s.masked_fill(%s %s %s, %s)" %
                        (v.name, v.name, self.pick([">", "<", "=="]), self.pick(["1", "-1.5", "0"]),
                         fill), [v.name], v.exact)
        if t is not None:
            t.nonfinite = True
        return t

    def layers(self, root, v):
        """A std::vector of tensors, or of a module struct, run by range-for
        (its length known only at run time), as ported model code does."""
        if v.dtype not in FLOAT or v.rank == 0 or v.shape[-1].startswith("D") or root.lists:
            return None
        kind = self.pick(["tensors", "layers"])
        name = "ws" if kind == "tensors" else "layers"
        shape = [v.shape[-1]] if self.r.random() < 0.7 else list(v.shape)
        if any(x.startswith("D") for x in shape):
            return None
        root.lists.append((name, kind, v.dtype, shape, self.pick([0, 1, 2, 3])))
        t = "t%d" % len(root.stmts)
        if kind == "tensors":
            text = ("Tensor %s = %s;\n  for (const Tensor &w : ws) {\n    %s = %s * 0.5f + w;\n  }"
                    % (t, v.name, t, t))
        else:
            text = ("Tensor %s = %s;\n  for (const %s &layer : layers)\n    %s = layer(%s);"
                    % (t, v.name, root.layer, t, t))
        nv = Val(t, v.dtype, v.shape, None)
        nv.lowp, nv.nonfinite = v.lowp, v.nonfinite
        root.stmts.append((text, nv, [v.name]))
        return nv

    def host_flag(self, root, v):
        """An if on a host bool parameter: a different op on each side."""
        if len(root.flags) >= 2 or v.dtype not in FLOAT:
            return None
        flag = "flag%d" % len(root.flags)
        root.flags.append(flag)
        name = "t%d" % len(root.stmts)
        text = "Tensor %s = %s * 2.0f;\n  if (%s) {\n    %s = %s.tanh() + %s;\n  }" % (
            name, v.name, flag, name, v.name, name)
        nv = Val(name, v.dtype, v.shape, None)
        nv.lowp, nv.nonfinite = v.lowp, v.nonfinite
        root.stmts.append((text, nv, [v.name]))
        return nv

    def loop(self, root, v):
        """A loop with a constant trip count, or one known only at run time
        (left on the host, its body a graph per step), accumulating."""
        if v.dtype not in FLOAT:
            return None
        name = "t%d" % len(root.stmts)
        n = self.pick([2, 3, "steps"])
        if n == "steps":
            root.steps = True
        text = ("Tensor %s = %s;\n  for (int64_t i = 0; i < %s; ++i) {\n    %s = %s * 0.5f + %s.tanh();\n  }"
                % (name, v.name, n, name, name, v.name))
        nv = Val(name, v.dtype, v.shape, None)
        nv.lowp, nv.nonfinite = v.lowp, v.nonfinite
        root.stmts.append((text, nv, [v.name]))
        return nv

    def in_place(self, root, v):
        """An in-place op on a fresh copy of v: `h += w`, `h.add_(w, 0.5)`,
        `h.mul_(2).add_(w)`, clamp_, or on a view of it (which the tracer
        leaves to host code, where it changes both); w broadcasts to v."""
        if v.dtype not in FLOAT + INT:
            return None
        name = "t%d" % len(root.stmts)
        cands = [w for w in self.values(root) if w.dtype == v.dtype and
                 broadcasts(w.shape, v.shape) and bshape(v.shape, w.shape) == list(v.shape)]
        w = self.pick(cands) if cands else None
        forms = ["%s.clamp_(-1, 2);"]
        if w is not None:
            forms += ["%s += " + w.name + ";", "%s -= " + w.name + ";",
                      "%s.mul_(2).add_(" + w.name + ");"]
            if v.dtype in FLOAT:
                forms += ["%s.add_(" + w.name + ", 0.5);",
                          "%s.addcmul_(" + w.name + ", " + w.name + ", -0.25);"]
        form = self.pick(forms)
        e = None
        if v.exact and (w is None or w.exact) and "0." not in form:
            e = (max(v.exact[0], w.exact[0] if w else 0) + 2,
                 max(v.exact[1], w.exact[1] if w else 0, 1))
        if v.dtype in INT and not exact_ok(v.dtype, e):
            return None
        uses = [v.name] + ([w.name] if w is not None and w.name in form else [])
        if len(v.shape) >= 2 and self.r.random() < 0.2:
            # Through a transposed view: the op changes the copy too.
            text = ("Tensor %s = %s * 1;\n  Tensor %s_t = %s.transpose(0, 1);\n  %s"
                    % (name, v.name, name, name, "%s_t.mul_(3);" % name))
        else:
            text = "Tensor %s = %s * 1;\n  %s" % (name, v.name, form % name)
        nv = Val(name, v.dtype, v.shape, e)
        nv.lowp = v.lowp if w is None else max(v.lowp, w.lowp)
        nv.nonfinite = v.nonfinite or (w is not None and w.nonfinite)
        root.stmts.append((text, nv, uses))
        return nv

    def host_code(self, root, v):
        """A graph break (kiln::graph_break()) or a call of a KILN_DISABLE()
        function: the code around it is compiled in pieces."""
        if self.r.random() < 0.5:
            root.stmts.append(("kiln::graph_break();", None, []))
            return v
        if v.dtype == "bool":
            return None
        e = v.exact and (v.exact[0] + 2, v.exact[1])
        return self.define(root, v.dtype, v.shape, "host_step(%s)" % v.name, [v.name], e)

    # -- roots ----------------------------------------------------------------
    def root(self, index):
        root = Root(index)
        dtype = self.r.choices(["f32", "f64", "f16", "bf16", "i32", "i64", "bool"],
                               [12, 4, 1, 1, 2, 2, 2])[0]
        first = self.new_param(root, dtype, self.random_shape(self.r.randint(1, 3)))
        cur = first
        for _ in range(self.r.randint(2, 10)):
            nxt = None
            for _ in range(8):
                nxt = self.op(root, cur)
                if nxt is not None:
                    break
            if nxt is None:
                break
            # Go on from the new value, or sometimes from an earlier one.
            cur = nxt if self.r.random() < 0.8 else self.pick(self.values(root))
        vals = [s[1] for s in root.stmts if s[1] is not None]
        root.result = vals[-1] if vals else first
        if len(vals) > 2 and self.r.random() < 0.3:
            root.out = self.pick(vals[:-1])
            root.ret = self.r.choices(["out", "struct", "tuple"], [2, 1, 1])[0]
        root.form = self.r.choices(["fn", "method", "functor"], [6, 1, 1])[0]
        if root.form != "fn":
            for p in root.params[1:]:
                p.member = self.r.random() < 0.6
        # Unread inputs always go; unread statements mostly (dead code stays
        # in some roots, as it does in model code).
        if self.r.random() < 0.7:
            return prune(root)
        live = "\n".join(s[0] for s in root.stmts) + root.result.name
        root.params = [p for p in root.params if re.search(r"\b%s\b" % p.name, live)]
        return root


def broadcasts(small, big):
    """Whether small broadcasts to big's shape without changing big."""
    if len(small) > len(big):
        return False
    for a, b in zip(reversed(small), reversed(big)):
        if a != b and a != "1":
            return False
    return True


def bshape(a, b):
    n = max(len(a), len(b))
    a = ("1",) * (n - len(a)) + tuple(a)
    b = ("1",) * (n - len(b)) + tuple(b)
    return tuple(y if x == "1" else x for x, y in zip(a, b))


PRELUDE = r"""#include <kiln/kiln.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>
#include <vector>

using kiln::Tensor;

// Host code inside compiled functions: a graph break where it is called.
KILN_DISABLE() static Tensor host_step(const Tensor &x) { return x * 2 + 1; }

static void dump(const char *name, const Tensor &t) {
  Tensor c = t.to(kiln::kFloat64).contiguous();
  std::printf("%s %s [", name, kiln::dtypeName(t.dtype()));
  for (int64_t i = 0; i < t.dim(); ++i)
    std::printf(i ? " %lld" : "%lld", (long long)t.size(i));
  std::printf("]\n");
  const double *p = c.data<double>();
  for (int64_t i = 0; i < c.numel(); ++i)
    std::printf("%.17g\n", p[i]);
}
"""


def program(roots, seeds):
    parts = [PRELUDE]
    parts += [r.source() + "\n" for r in roots]
    parts.append("int main(int argc, char **argv) {")
    for i, (sym, default) in enumerate(zip(SYMS, SIZE_SETS[0])):
        parts.append("  const int64_t %s = argc > %d ? std::atoll(argv[%d]) : %d;" % (sym, i + 1, i + 1, default))
    for r, s in zip(roots, seeds):
        parts.append(r.call(s))
    parts.append("}")
    return "\n".join(parts) + "\n"


# -- running ------------------------------------------------------------------

class Toolchain:
    def __init__(self, args):
        self.args = args
        self.kiln = args.kiln or shutil.which("kiln") or "kiln"
        self.times = {}

    def run(self, cmd, timeout, env=None, split=False):
        """(status, output) or, with split, (status, stdout, stderr): status
        is 'ok', 'fail', 'crash' or 'hang'."""
        start = time.time()
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=timeout, env=env, text=True, errors="replace")
            out, err = p.stdout, p.stderr
            if p.returncode < 0 or p.returncode in (134, 139) or "Sanitizer" in err \
                    or "LLVM ERROR" in out + err or "Assertion" in err:
                status = "crash"
            else:
                status = "ok" if p.returncode == 0 else "fail"
        except subprocess.TimeoutExpired:
            status, out, err = "hang", "", ""
        step = os.path.basename(cmd[0]) + (" " + cmd[1] if "kiln" in cmd[0] else "")
        self.times[step] = self.times.get(step, 0.0) + time.time() - start
        return (status, out, err) if split else (status, out + err)

    def build(self, srcs, exe):
        a = self.args
        cmd = [a.cxx, "-std=c++17", "-O1", "-w"] + a.includes.split() + srcs + ["-o", exe] + \
            a.link.split()
        return self.run(cmd, a.timeout * 4)


def parse_output(text):
    """{root: [(dtype, shape, [values])] or 'error ...'} from a program's output."""
    res = {}
    cur = None
    for line in text.splitlines():
        m = re.match(r"(fuzz_\d+)(\.out|\.grad)? (\S+) \[([\d ]*)\]$", line)
        if m:
            cur = [m.group(3), m.group(4), []]
            res.setdefault(m.group(1), []).append(cur)
            continue
        m = re.match(r"(fuzz_\d+) error (.*)$", line)
        if m:
            res.setdefault(m.group(1), []).append(("error", m.group(2)))
            cur = None
            continue
        if cur is not None:
            cur[2].append(float(line))
    return res


def agree(ref, got, lowp):
    """None when got matches ref, else a description of the first difference.
    lowp: for each result, the coarsest float type on its way (LOWP)."""
    if len(ref) != len(got):
        return "%d results against %d" % (len(got), len(ref))
    for e, a, low in zip(ref, got, lowp):
        if e[0] == "error" or a[0] == "error":
            if tuple(e) != tuple(a):
                return "eager %s, compiled %s" % (" ".join(e[:2]) if e[0] == "error" else "a value",
                                                  " ".join(a[:2]) if a[0] == "error" else "a value")
            continue
        if e[0] != a[0] or e[1] != a[1]:
            return "eager %s [%s], compiled %s [%s]" % (e[0], e[1], a[0], a[1])
        if len(e[2]) != len(a[2]):
            return "value counts differ"
        floating = e[0] in ("float32", "float64", "float16", "bfloat16")
        # Relative to the value, and absolute relative to the tensor's
        # largest value (at least 1: inputs are of that order), which
        # covers cancellation and the tails of approximated functions.
        rtol, atol = [(1e-9, 1e-12), (1e-4, 1e-5), (1e-2, 1e-2)][low]
        finite = [abs(x) for x in e[2] if math.isfinite(x)]
        scale = max(finite + [1.0])
        for i, (x, y) in enumerate(zip(e[2], a[2])):
            if x == y or (math.isnan(x) and math.isnan(y)):
                continue
            if floating and math.isfinite(x) and math.isfinite(y) and \
                    abs(x - y) <= rtol * abs(x) + atol * scale:
                continue
            return "element %d of a %s [%s]: eager %r, compiled %r" % (i, e[0], e[1], x, y)
    return None


class Batch:
    """Roots compiled together in one translation unit."""

    def __init__(self, tc, work, roots, seeds):
        self.tc, self.work, self.roots, self.seeds = tc, work, roots, seeds

    def classify(self):
        """{root name: (kind, detail)} for every root of the batch."""
        tc, w = self.tc, self.work
        os.makedirs(w, exist_ok=True)
        src = os.path.join(w, "prog.cpp")
        with open(src, "w") as f:
            f.write(program(self.roots, self.seeds))
        names = [r.name for r in self.roots]
        status, out = tc.build([src], os.path.join(w, "ref"))
        if status != "ok":
            return {n: ("invalid", "the eager build failed: " + first_error(out)) for n in names}
        # Every program is new: the compile cache would only fill up.
        status, out = tc.run([tc.kiln, "compile", src, "-o", os.path.join(w, "cpu.cpp"),
                              "--no-cache"] + (["--autograd"] if tc.args.train else []),
                             tc.args.timeout * 4)
        if status != "ok":
            kind = "compile" if status == "fail" else status
            return {n: (kind, first_error(out)) for n in names}
        status, out = tc.build([os.path.join(w, "cpu.cpp"), os.path.join(w, "cpu.o")],
                               os.path.join(w, "cpu"))
        if status != "ok":
            return {n: ("compile", "the stitched source does not build: " + first_error(out))
                    for n in names}
        # Roots with no graph (a body of host calls, or views of inputs
        # alone, which need no kernel) have nothing to run compiled.
        with open(os.path.join(w, "cpu.cpp")) as f:
            stitched = f.read()
        graphless = {r.name for r in self.roots if not re.search(r"\b" + r.graphs(), stitched)}
        result = {}
        env = dict(os.environ, KILN_LOGS="graph_calls,guards")
        for sizes in SIZE_SETS:
            argv = [str(s) for s in sizes]
            rs, rout, _ = tc.run([os.path.join(w, "ref")] + argv, tc.args.timeout, split=True)
            cs, cout, clog = tc.run([os.path.join(w, "cpu")] + argv, tc.args.timeout, env=env,
                                    split=True)
            ref, got = parse_output(rout), parse_output(cout)
            where = "at sizes %s" % " ".join(argv)
            for n in names:
                if n in result:
                    continue
                if rs != "ok" or n not in ref:
                    if n not in ref or rs != "ok" and n not in got:
                        result[n] = ("invalid", "eager %s %s" % (rs, where))
                    continue
                if any(e[0] == "error" for e in ref[n]):
                    result[n] = ("invalid", "eager raised %s %s" % (ref[n][0][1], where))
                    continue
                if cs in ("crash", "hang") and n not in got:
                    result[n] = (cs, "the compiled program %s" % where)
                    continue
                if n not in got:
                    result[n] = ("crash", "no output from the compiled program %s" % where)
                    continue
                root = next(r for r in self.roots if r.name == n)
                lowp = [root.result.lowp] + ([root.out.lowp] if root.out is not None else [])
                # A gradient has been through everything the outputs have.
                lowp += [max(lowp)] * len(root.trained())
                diff = agree(ref[n], got[n], lowp)
                if diff:
                    closer = self.closer_to_float64(n, argv, ref[n], got[n])
                    if closer:
                        result[n] = ("match", "%s %s; %s" % (diff, where, closer))
                    else:
                        result[n] = ("miscompile", "%s %s" % (diff, where))
                    continue
                fell = re.search(r"graph %s\S*:? (.*); running it eagerly" % root.graphs(), clog)
                if fell and "has no compiled backward" in fell.group(1) and \
                        "has no gradient" in fell.group(1):
                    result[n] = ("nograd", "%s %s" % (fell.group(1), where))
                elif fell:
                    result[n] = ("fallback", "%s %s" % (fell.group(1), where))
                elif n not in graphless and \
                        not re.search(r"graph %s\S*: ran compiled" % root.graphs(), clog):
                    # A root whose graphs are all inside loops over a vector
                    # that is empty here calls none (the log names none).
                    empty = [l for l in root.lists if l[4] == 0]
                    if not (empty and not re.search(r"graph %s\S*" % root.graphs(), clog)):
                        result[n] = ("fallback", "no graph of it ran compiled %s" % where)
        for n in names:
            result.setdefault(n, ("match", ""))
        return result


    def closer_to_float64(self, name, argv, ref, got):
        """torch._dynamo's accuracy rule (utils.same with an fp64 reference):
        a compiled result that differs from eager is accepted when its error
        against the same program computed in float64 (every float tensor
        made float64: the source with kFloat32, kFloat16 and kBFloat16
        replaced) is at most twice eager's, plus a little. Ill-conditioned
        results (a layer_norm of nearly equal values, where a few ulp of the
        inputs move the output by tens of percent) differ between any two
        correct float32 computations. A description when accepted, else
        None."""
        w = self.work
        exe = os.path.join(w, "ref64")
        if not hasattr(self, "_ref64"):
            self._ref64 = {}
            with open(os.path.join(w, "prog.cpp")) as f:
                text = f.read()
            text64 = re.sub(r"\bkiln::k(Float32|Float16|BFloat16)\b", "kiln::kFloat64", text)
            src = os.path.join(w, "prog64.cpp")
            with open(src, "w") as f:
                f.write(text64)
            status, _ = self.tc.build([src], exe)
            self._built64 = status == "ok"
        if not self._built64:
            return None
        key = " ".join(argv)
        if key not in self._ref64:
            status, out, _ = self.tc.run([exe] + argv, self.tc.args.timeout, split=True)
            self._ref64[key] = parse_output(out) if status == "ok" else {}
        exact = self._ref64[key].get(name)
        if not exact or len(exact) != len(ref):
            return None
        worst = 0.0
        for e, a, x in zip(ref, got, exact):
            if "error" in (e[0], a[0], x[0]) or e[1] != a[1] or e[1] != x[1]:
                return None
            pairs = [(r, y, z) for r, y, z in zip(x[2], e[2], a[2])
                     if math.isfinite(r) and math.isfinite(y) and math.isfinite(z)]
            if len(pairs) != len(x[2]):
                return None
            if not pairs:
                continue
            rmse = lambda k: math.sqrt(sum((p[k] - p[0]) ** 2 for p in pairs) / len(pairs))
            eager_err, compiled_err = rmse(1), rmse(2)
            scale = max([abs(p[0]) for p in pairs] + [1.0])
            if compiled_err > 2.0 * eager_err + 1e-6 * scale:
                return None
            worst = max(worst, compiled_err / eager_err if eager_err else 0.0)
        return ("ill-conditioned: against the float64 program, compiled's error is "
                "%.2fx eager's" % worst)


def first_error(out):
    for line in out.splitlines():
        if "error" in line.lower() or "LLVM ERROR" in line:
            return line.strip()[:300]
    lines = out.strip().splitlines()
    return lines[-1][:300] if lines else "(no output)"


def attribute(tc, work, roots, seeds, result):
    """A failure that took the whole batch down (compile, crash, hang) is
    rerun root by root to find the roots it belongs to."""
    kinds = {k for k, _ in result.values()}
    if len(roots) == 1 or not kinds & {"compile", "crash", "hang", "invalid"}:
        return result
    whole = [n for n, (k, _) in result.items() if k in ("compile", "crash", "hang", "invalid")]
    for i, (r, s) in enumerate(zip(roots, seeds)):
        if r.name in whole:
            single = Batch(tc, os.path.join(work, "single-%d" % i), [r], [s]).classify()
            result[r.name] = single[r.name]
    return result


def reduce_root(tc, work, root, seed, kind, log):
    """Deletes statements, the out-parameter and flags' branches while the
    root keeps failing the same way; returns the smallest failing root."""
    import copy

    def fails(candidate):
        res = Batch(tc, os.path.join(work, "reduce"), [candidate], [seed]).classify()
        return res[candidate.name][0] == kind

    best = root
    changed = True
    tries = 0
    while changed and tries < 200:
        changed = False
        # Return an earlier value and drop everything after it.
        vals = [i for i, s in enumerate(best.stmts) if s[1] is not None]
        for i in vals[:-1]:
            c = copy.deepcopy(best)
            c.result = c.stmts[i][1]
            c.stmts = c.stmts[:i + 1]
            if c.out is not None and c.out.name not in [s[1].name for s in c.stmts]:
                c.out = None
            c = prune(c)
            tries += 1
            if fails(c):
                best, changed = c, True
                log("  reduced to %d statements" % len(best.stmts))
                break
        if changed:
            continue
        if best.out is not None:
            c = copy.deepcopy(best)
            c.out = None
            c = prune(c)
            tries += 1
            if fails(c):
                best, changed = c, True
                continue
        # Replace a statement's value by one of its operands of the same type.
        for i, (text, v, uses) in enumerate(best.stmts):
            if v is None:
                continue
            for u in uses:
                src = next((x for x in best.params + [s[1] for s in best.stmts[:i]]
                            if x.name == u), None)
                if src is None or src.dtype != v.dtype or tuple(src.shape) != tuple(v.shape):
                    continue
                c = copy.deepcopy(best)
                c.stmts[i] = ("Tensor %s = %s;" % (v.name, u), c.stmts[i][1], [u])
                c = prune(c)
                tries += 1
                if fails(c):
                    best, changed = c, True
                    break
            if changed:
                break
    return best


def prune(root):
    """Drops statements and parameters nothing reads."""
    live = {root.result.name} | ({root.out.name} if root.out is not None else set())
    kept = []
    for s in reversed(root.stmts):
        if s[1] is None or s[1].name in live:
            kept.append(s)
            live |= set(s[2])
    root.stmts = list(reversed(kept))
    root.params = [p for p in root.params if p.name in live]
    used = "\n".join(s[0] for s in root.stmts)
    root.flags = [f for f in root.flags if re.search(r"\b%s\b" % f, used)]
    root.lists = [l for l in root.lists if re.search(r"\b%s\b" % l[0], used)]
    root.steps = "steps" in used
    return root


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--count", type=int, default=100, help="roots to generate")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--batch", type=int, default=25, help="roots per translation unit")
    p.add_argument("--work", required=True, help="directory for programs and failures")
    p.add_argument("--kiln", help="the kiln binary (default: kiln on PATH)")
    p.add_argument("--cxx", default="clang++")
    p.add_argument("--includes", default="", help="compiler flags finding kiln's headers")
    p.add_argument("--link", default="", help="link flags for the runtime and libomp")
    p.add_argument("--timeout", type=float, default=60, help="seconds per run (x4 per build)")
    p.add_argument("--jobs", type=int, default=1, help="translation units built at once")
    p.add_argument("--no-reduce", action="store_true", help="keep failures as generated")
    p.add_argument("--train", action="store_true",
                   help="training programs: the float32/64 inputs require grad (about a quarter "
                        "frozen), the compiled "
                        "build is made with --autograd, and each input's gradient is compared too")
    p.add_argument("--print", action="store_true", help="print the generated program and stop")
    p.add_argument("--progress", action="store_true", help="print the counts after each unit")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args()

    gen = Generator(args.seed, args.train)
    roots = [gen.root(i) for i in range(args.count)]
    seeds = [args.seed * 100003 + i for i in range(args.count)]
    for r, seed in zip(roots, seeds):
        r.train = args.train
        if args.train:
            r.freeze(seed)
    if args.print:
        sys.stdout.write(program(roots, seeds))
        return 0
    tc = Toolchain(args)
    os.makedirs(args.work, exist_ok=True)
    fails_dir = os.path.join(args.work, "failures")
    counts = {k: 0 for k in KINDS}
    failures = []

    def log(msg):
        print(msg, flush=True)

    def run_batch(b):
        rs, ss = roots[b:b + args.batch], seeds[b:b + args.batch]
        bw = os.path.join(args.work, "batch-%d" % (b // args.batch))
        result = Batch(tc, bw, rs, ss).classify()
        return rs, ss, bw, attribute(tc, bw, rs, ss, result)

    pool = concurrent.futures.ThreadPoolExecutor(args.jobs)
    starts = range(0, args.count, args.batch)
    for done, (rs, ss, bw, result) in enumerate(pool.map(run_batch, starts), 1):
        for r, s in zip(rs, ss):
            kind, detail = result[r.name]
            counts[kind] += 1
            if args.verbose or kind != "match" or detail:
                log("%s (seed %d): %s%s" % (r.name, args.seed, kind, ": " + detail if detail else ""))
            if kind not in ("match", "nograd"):
                failures.append((r, s, kind, detail))
        if all(result[r.name][0] == "match" for r in rs):
            shutil.rmtree(bw, ignore_errors=True)
        if args.progress:
            log("[%d/%d units] %s" % (done, len(starts),
                                      ", ".join("%d %s" % (counts[k], k) for k in KINDS)))
    pool.shutdown()

    for r, s, kind, detail in failures:
        os.makedirs(fails_dir, exist_ok=True)
        small = r
        if not args.no_reduce and kind not in ("invalid",):
            log("reducing %s (%s)" % (r.name, kind))
            small = reduce_root(tc, os.path.join(args.work, "reduce-%s" % r.name), r, s, kind, log)
        path = os.path.join(fails_dir, "%s-%d-%d.cpp" % (kind, args.seed, r.index))
        with open(path, "w") as f:
            f.write("// %s: %s\n// kiln_fuzz.py --seed %d, root %d\n" % (kind, detail, args.seed, r.index))
            f.write(program([small], [s]))
        log("kept %s" % path)

    total = sum(counts.values())
    if args.verbose:
        log("time: " + ", ".join("%s %.1f s" % kv for kv in sorted(tc.times.items())))
    log("%d roots: %s" % (total, ", ".join("%d %s" % (counts[k], k) for k in KINDS)))
    return 0 if counts["match"] + counts["nograd"] == total else 1


if __name__ == "__main__":
    sys.exit(main())
