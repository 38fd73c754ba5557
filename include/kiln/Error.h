//===- kiln/Error.h - The runtime's exception type --------------*- C++ -*-===//
//
// Every misuse of the runtime (shape mismatch, bad dim, unsupported dtype...)
// throws kiln::Error. Compiled graphs raise the same errors as eager code.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ERROR_H
#define KILN_ERROR_H

#include <stdexcept>
#include <string>

namespace kiln {

class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message) : std::runtime_error(message) {}
};

} // namespace kiln

#endif // KILN_ERROR_H
