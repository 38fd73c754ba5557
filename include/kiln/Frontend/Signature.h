//===- kiln/Frontend/Signature.h - Stated graph signatures ------*- C++ -*-===//
//
// A compile root's signature as the user states it (kiln compile
// --signature), like torch.export's example inputs or IREE's typed
// functions: 'Model::forward(f32[?,?,768], bool[?,?], _)'. Each parameter
// is a tensor type (element type, then its dims: ? or a size; [] for 0-d)
// or _ (not stated: a scalar, or left to the source).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_SIGNATURE_H
#define KILN_FRONTEND_SIGNATURE_H

#include "kiln/Frontend/Graph.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::frontend {

struct StatedTensor {
  ElementType element;
  int64_t rank;
  /// From a KILN_RECORD file (--signatures) rather than --signature.
  bool recorded = false;
};

struct StatedSignature {
  /// The function's qualified name, as `kiln explain` prints it.
  std::string function;
  /// Per parameter, in order: a tensor type, or nullopt for `_`.
  std::vector<std::optional<StatedTensor>> params;
};

/// Parses one --signature; the error says what is wrong with it.
llvm::Expected<StatedSignature> parseSignature(const std::string &text);

/// "f32 tensor of rank 2".
std::string describe(const StatedTensor &type);

/// A tensor type as signatures write it, sizes left open: "f32[?,?]",
/// "bool[?]".
std::string signatureSpelling(ElementType element, int64_t rank);

} // namespace kiln::frontend

#endif
