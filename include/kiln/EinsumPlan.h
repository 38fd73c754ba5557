//===- EinsumPlan.h - How einsum computes an equation -----------*- C++ -*-===//
//
// kiln::einsum and the frontend's tracing of it follow one plan, so that
// compiled code computes what eager does by construction: labels that only
// one operand has and the output lacks are summed out first; each operand
// is permuted to [batch, kept, contracted] (the right one to [batch,
// contracted, kept]); the kept and the contracted dims are each flattened
// into one; one batched matmul (batch dims broadcast) contracts them; the
// result is unflattened and permuted to the output's order. Header-only and
// free of tensors: the plan is dims and permutations.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EINSUMPLAN_H
#define KILN_EINSUMPLAN_H

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::detail {

struct EinsumOperandPlan {
  /// Dims summed out first: labels no other operand and not the output has.
  std::vector<int64_t> sumDims;
  /// The remaining dims (numbered after the sum) in the order [batch, kept,
  /// contracted] for the left operand, [batch, contracted, kept] for the
  /// right one, or the output's order for a single operand.
  std::vector<int64_t> perm;
};

struct EinsumPlan {
  std::vector<EinsumOperandPlan> operands;
  /// How many batch (in both operands and the output), kept (in one operand
  /// and the output) and contracted (in both operands only) dims there are.
  int64_t batch = 0, leftKept = 0, rightKept = 0, contracted = 0;
  /// From [batch, left kept, right kept] to the output's order.
  std::vector<int64_t> outPerm;
  /// Non-empty when the equation does not apply to the ranks: why.
  std::string error;
};

/// The plan for `equation` (torch's: letters, `->` and an output, or the
/// letters that appear once in alphabetical order when it is left out; `...`
/// for broadcast batch dims) over one or two operands of `ranks`.
inline EinsumPlan planEinsum(const std::string &equation,
                             const std::vector<int64_t> &ranks) {
  EinsumPlan plan;
  auto fail = [&](const std::string &why) {
    plan.error = "einsum: " + why;
    return plan;
  };
  std::string spec;
  for (char c : equation)
    if (!std::isspace(static_cast<unsigned char>(c)))
      spec += c;
  size_t arrow = spec.find("->");
  std::string lhs = spec.substr(0, arrow);
  std::vector<std::string> inputs(1);
  for (char c : lhs) {
    if (c == ',')
      inputs.emplace_back();
    else
      inputs.back() += c;
  }
  if (inputs.size() != ranks.size())
    return fail("the equation has " + std::to_string(inputs.size()) +
                " operands but " + std::to_string(ranks.size()) +
                " tensors were given");
  if (inputs.size() > 2)
    return fail("at most two operands are supported, got " +
                std::to_string(inputs.size()));
  // Labels: letters, and the ellipsis's dims as the characters 1, 2, ...
  // counted from the right (broadcast batch dims align at the right).
  int64_t ellipsisDims = 0;
  std::vector<std::string> labels;
  auto expand = [&](const std::string &s, int64_t rank,
                    std::string &out) -> bool {
    size_t dots = s.find("...");
    std::string letters = s;
    if (dots != std::string::npos)
      letters.erase(dots, 3);
    for (char c : letters)
      if (!std::isalpha(static_cast<unsigned char>(c))) {
        plan.error = std::string("einsum: invalid subscript '") + c +
                     "' in \"" + equation + "\"";
        return false;
      }
    if (dots == std::string::npos) {
      if (rank >= 0 && static_cast<int64_t>(s.size()) != rank) {
        plan.error = "einsum: \"" + s + "\" has " + std::to_string(s.size()) +
                     " subscripts for a tensor of " + std::to_string(rank) +
                     " dims";
        return false;
      }
      out = s;
      return true;
    }
    int64_t dims = rank - static_cast<int64_t>(letters.size());
    if (dims < 0) {
      plan.error = "einsum: \"" + s + "\" has more subscripts than the " +
                   std::to_string(rank) + " dims of its tensor";
      return false;
    }
    ellipsisDims = std::max(ellipsisDims, dims);
    std::string mid;
    for (int64_t i = dims; i > 0; --i)
      mid += static_cast<char>(i);
    out = s.substr(0, dots) + mid + s.substr(dots + 3);
    return true;
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string l;
    if (!expand(inputs[i], ranks[i], l))
      return plan;
    for (size_t a = 0; a < l.size(); ++a)
      if (l.find(l[a], a + 1) != std::string::npos)
        return fail(std::string("subscript '") + l[a] +
                    "' repeats in one operand (diagonals are not supported)");
    labels.push_back(l);
  }
  std::string out;
  if (arrow != std::string::npos) {
    std::string o = spec.substr(arrow + 2);
    size_t dots = o.find("...");
    std::string letters = o;
    if (dots != std::string::npos)
      letters.erase(dots, 3);
    for (char c : letters) {
      if (!std::isalpha(static_cast<unsigned char>(c)))
        return fail(std::string("invalid subscript '") + c + "' in \"" +
                    equation + "\"");
      if (std::count(letters.begin(), letters.end(), c) > 1)
        return fail(std::string("subscript '") + c + "' repeats in the output");
      if (lhs.find(c) == std::string::npos)
        return fail(std::string("output subscript '") + c +
                    "' is in no operand");
    }
    std::string mid;
    for (int64_t i = ellipsisDims; i > 0; --i)
      mid += static_cast<char>(i);
    out = dots == std::string::npos
              ? o
              : o.substr(0, dots) + mid + o.substr(dots + 3);
    if (dots == std::string::npos && ellipsisDims > 0)
      return fail("the output must keep the operands' '...' dims");
  } else {
    // torch's implicit output: the ellipsis's dims, then the letters that
    // appear once, in alphabetical order.
    for (int64_t i = ellipsisDims; i > 0; --i)
      out += static_cast<char>(i);
    std::string all = labels[0] + (labels.size() > 1 ? labels[1] : "");
    std::string once;
    for (char c : all)
      if (std::isalpha(static_cast<unsigned char>(c)) &&
          std::count(all.begin(), all.end(), c) == 1)
        once += c;
    std::sort(once.begin(), once.end());
    out += once;
  }

  auto has = [](const std::string &s, char c) {
    return s.find(c) != std::string::npos;
  };
  // Sum out what only one operand has; what remains, in order.
  std::vector<std::string> left(labels.size());
  for (size_t i = 0; i < labels.size(); ++i) {
    EinsumOperandPlan p;
    for (size_t d = 0; d < labels[i].size(); ++d) {
      char c = labels[i][d];
      bool elsewhere =
          has(out, c) || (labels.size() > 1 && has(labels[1 - i], c));
      if (elsewhere)
        left[i] += c;
      else
        p.sumDims.push_back(static_cast<int64_t>(d));
    }
    plan.operands.push_back(p);
  }
  auto positions = [&](const std::string &from, const std::string &order) {
    std::vector<int64_t> perm;
    for (char c : order)
      perm.push_back(static_cast<int64_t>(from.find(c)));
    return perm;
  };
  if (labels.size() == 1) {
    plan.operands[0].perm = positions(left[0], out);
    return plan;
  }
  std::string batch, keptL, keptR, contracted;
  for (char c : left[0]) {
    if (has(left[1], c))
      (has(out, c) ? batch : contracted) += c;
    else
      keptL += c;
  }
  for (char c : left[1])
    if (!has(left[0], c))
      keptR += c;
  plan.batch = static_cast<int64_t>(batch.size());
  plan.leftKept = static_cast<int64_t>(keptL.size());
  plan.rightKept = static_cast<int64_t>(keptR.size());
  plan.contracted = static_cast<int64_t>(contracted.size());
  plan.operands[0].perm = positions(left[0], batch + keptL + contracted);
  plan.operands[1].perm = positions(left[1], batch + contracted + keptR);
  plan.outPerm = positions(batch + keptL + keptR, out);
  return plan;
}

} // namespace kiln::detail

#endif
