// Tests that input types come from the whole translation unit: a member
// from its constructor, a parameter from its callers (a function's return,
// kiln::arange of integers, a comparison, from_vector<int64_t>, to(dtype)),
// through locals and ops; a shape of no dims (`{}`) is rank 0. Every graph runs compiled, with the eager
// results, at a size the source never names.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t 7
// RUN: FileCheck %s --check-prefix=OUT < %t/cpu.txt
// CHECK: inputs: x (f64 tensor of rank 2) this->s (f64 tensor of rank 1)
// CHECK: inputs: keep (i1 tensor of rank 1) idx (i64 tensor of rank 1)
// CHECK: inputs: ids (i64 tensor of rank 2) table (f64 tensor of rank 2)
// CHECK: inputs: v (f64 tensor of rank 2)
// CHECK-NEXT: outputs: return
// CHECK-NEXT: types: v call site
// CHECK: inputs: x (f64 tensor of rank 2) this->w (f64 tensor of rank 2)
// CHECK-NEXT: outputs: return
// CHECK-NEXT: types: x call site this->w source
// CHECK: inputs: logits (f64 tensor of rank 2) temperature (f64 tensor of rank 0)
// OUT: scaled dtype=float64 dim=2
// OUT: shifted dtype=int64 dim=1 sum=61.000000000
// OUT: looked up dtype=float64 dim=2
// OUT: centred dtype=float64 dim=2 sum=0.000000000
// OUT: gated dtype=float64 dim=2
// OUT: tempered dtype=float64 dim=2
#include <kiln/kiln.h>
#include <cstdio>
#include <vector>
using kiln::Tensor;

// A member typed by its constructor, an input by a function's return.
struct Scaler {
  Tensor s;
  explicit Scaler(int64_t n) : s(kiln::full({n}, 0.5, kiln::kFloat64)) {}
  KILN_COMPILE() Tensor forward(const Tensor &x) const { return kiln::tanh(x * s); }
};

Tensor make(int64_t rows, int64_t n) { return kiln::randn({rows, n}, 1, kiln::kFloat64); }

// Integer and bool inputs from the call sites.
KILN_COMPILE() Tensor shift(const Tensor &idx, const Tensor &keep) {
  return kiln::where(keep, idx * 3 + 1, idx);
}

// Through a local cast and an embedding table's dtype.
KILN_COMPILE() Tensor lookup(const Tensor &table, const Tensor &ids) {
  Tensor rows = kiln::embedding(ids, table);
  return kiln::sum(rows, {-1}, false);
}

// Through a parenthesized expression, a cast and reshape.
KILN_COMPILE() Tensor centre(const Tensor &v) { return v - kiln::mean(v, {-1}, true); }

// A weight made by a helper lambda from a braced shape; an input passed
// down a chain of calls.
struct Gate {
  Tensor w;
  KILN_COMPILE() Tensor forward(const Tensor &x) const { return kiln::sigmoid(x) * w; }
};
Tensor stage2(const Tensor &t, const Gate &g) { return g.forward(t); }
Tensor stage1(const Tensor &t, const Gate &g) { return stage2(t, g); }

// A rank-0 tensor from an empty shape.
KILN_COMPILE() Tensor temper(const Tensor &logits, const Tensor &temperature) {
  return kiln::softmax(logits / temperature, -1);
}

static void dump(const char *tag, const Tensor &t) {
  Tensor c = t.to(kiln::kFloat64).contiguous();
  std::printf("%s dtype=%s dim=%lld sum=%.9f\n", tag, kiln::dtypeName(t.dtype()),
              (long long)t.dim(), kiln::sum(c).item<double>());
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 5;
  Scaler scaler(n);
  Tensor x = make(3, n);
  dump("scaled", scaler.forward(x));
  Tensor idx = kiln::arange(0, n, 1);
  Tensor keep = kiln::arange(n) > 2;
  dump("shifted", shift(idx, keep));
  Tensor table = kiln::randn({10, 4}, 2).to(kiln::kFloat64);
  Tensor ids = kiln::from_vector<int64_t>(std::vector<int64_t>{1, 3, 5, 7, 9, 0}, {2, 3});
  dump("looked up", lookup(table, ids));
  Tensor grid = (kiln::arange(n * 4).to(kiln::kFloat64) * 0.5 - 1.0).reshape({n, 4});
  dump("centred", centre(grid));
  uint64_t seed = 7;
  auto param = [&](kiln::Shape shape) {
    return kiln::randn(shape, seed++).to(kiln::kFloat64);
  };
  Gate gate{param({3, n})};
  dump("gated", stage1(make(3, n), gate));
  Tensor temperature = kiln::full({}, 0.7, kiln::kFloat64);
  dump("tempered", temper(make(2, n), temperature));
}
