//===- CompileCache.h - Compiled graphs by content, across builds -*- C++
//-*-===//
//
// `kiln compile` compiles each root's graphs into an object of their own and
// keeps it here under a key that hashes everything the object depends on:
// the graphs as traced (the kiln dialect, locations left out), the backend's
// options, the target (triple, CPU, features) and the compiler itself (its
// version, and the size and modification time of the kiln executable, as
// ccache's default compiler check). An unchanged root is therefore never
// lowered or optimized twice, across builds and translation units
// (docs/building.md, "The compile cache").
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DRIVER_COMPILECACHE_H
#define KILN_LIB_DRIVER_COMPILECACHE_H

#include "kiln/Stitch/Stitch.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::driver {

class CompileCache {
public:
  /// What one root compiles to: its object, and the GPU images its code
  /// reads from external symbols (embedded in the stitched source).
  struct Entry {
    std::string object;
    std::vector<stitch::EmbeddedImage> images;
  };

  /// The cache the environment selects: $KILN_CACHE_DIR, else kiln/ in the
  /// user's cache directory ($XDG_CACHE_HOME, else ~/.cache); none when
  /// `disabled` (--no-cache), when KILN_CACHE is 0, off or false, or when
  /// no directory can be named.
  static std::optional<CompileCache> open(bool disabled);

  /// The key of a compile unit whose inputs print as `content`.
  std::string key(llvm::StringRef content) const;
  /// The entry stored under key; none if absent or unreadable (a truncated
  /// or foreign file is a miss, and the next store replaces it).
  std::optional<Entry> lookup(const std::string &key) const;
  /// Stores entry under key (a temporary file renamed into place, so that
  /// concurrent builds never read half an entry). Returns an error message,
  /// or empty.
  std::string store(const std::string &key, const Entry &entry) const;

  const std::string &directory() const { return dir_; }

private:
  CompileCache(std::string dir, std::string identity)
      : dir_(std::move(dir)), identity_(std::move(identity)) {}
  std::string path(const std::string &key) const;

  std::string dir_;
  /// The compiler and target part of every key.
  std::string identity_;
};

} // namespace kiln::driver

#endif
