//===- Signature.cpp - Stated graph signatures ----------------------------===//
#include "kiln/Frontend/Signature.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSwitch.h"

namespace kiln::frontend {

namespace {

std::optional<ElementType> parseElement(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<ElementType>>(name)
      .Case("f32", ElementType::F32)
      .Case("f64", ElementType::F64)
      .Case("f16", ElementType::F16)
      .Case("bf16", ElementType::BF16)
      .Case("i32", ElementType::I32)
      .Case("i64", ElementType::I64)
      .Cases({"bool", "i1"}, ElementType::Bool)
      .Default(std::nullopt);
}

/// The parameters between the parentheses, split at top-level commas.
std::vector<std::string> splitParams(llvm::StringRef text) {
  std::vector<std::string> out;
  int depth = 0;
  std::string current;
  for (char c : text) {
    if (c == '[')
      ++depth;
    if (c == ']')
      --depth;
    if (c == ',' && depth == 0) {
      out.push_back(llvm::StringRef(current).trim().str());
      current.clear();
      continue;
    }
    current += c;
  }
  if (!llvm::StringRef(current).trim().empty() || !out.empty())
    out.push_back(llvm::StringRef(current).trim().str());
  return out;
}

} // namespace

llvm::Expected<StatedSignature> parseSignature(const std::string &text) {
  llvm::StringRef s = llvm::StringRef(text).trim();
  size_t open = s.find('(');
  if (open == llvm::StringRef::npos || open == 0 || !s.ends_with(")"))
    return llvm::createStringError(
        "expected NAME(TYPE, ...), e.g. 'Model::forward(f32[?,?,768], _)'");
  StatedSignature sig;
  sig.function = s.take_front(open).trim().str();
  for (const std::string &param :
       splitParams(s.drop_front(open + 1).drop_back())) {
    llvm::StringRef p(param);
    if (p == "_") {
      sig.params.push_back(std::nullopt);
      continue;
    }
    size_t bracket = p.find('[');
    if (bracket == llvm::StringRef::npos || !p.ends_with("]"))
      return llvm::createStringError(
          "'" + param +
          "': expected DTYPE[DIMS] (f32[?,?], i64[4], f64[]) or _");
    std::optional<ElementType> element = parseElement(p.take_front(bracket));
    if (!element)
      return llvm::createStringError(
          "'" + param +
          "': unknown dtype (f32, f64, f16, bf16, i32, i64, bool)");
    llvm::StringRef dims = p.drop_front(bracket + 1).drop_back().trim();
    int64_t rank = 0;
    if (!dims.empty()) {
      llvm::SmallVector<llvm::StringRef> parts;
      dims.split(parts, ',');
      for (llvm::StringRef d : parts) {
        d = d.trim();
        unsigned long long size;
        if (d != "?" && d.getAsInteger(10, size))
          return llvm::createStringError(
              "'" + param + "': a dim is ? or a size, not '" + d.str() + "'");
        ++rank;
      }
    }
    sig.params.push_back(StatedTensor{*element, rank});
  }
  return sig;
}

std::string describe(const StatedTensor &type) {
  return std::string(elementTypeName(type.element)) + " tensor of rank " +
         std::to_string(type.rank);
}

std::string signatureSpelling(ElementType element, int64_t rank) {
  std::string s =
      element == ElementType::Bool ? "bool" : elementTypeName(element);
  s += "[";
  for (int64_t d = 0; d < rank; ++d)
    s += d ? ",?" : "?";
  return s + "]";
}

} // namespace kiln::frontend
