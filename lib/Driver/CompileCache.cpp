//===- CompileCache.cpp - Compiled graphs by content, across builds -------===//
#include "CompileCache.h"

#include "kiln/version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <cstdlib>

namespace kiln::driver {

namespace {

/// The first line of every entry; a file without it is not one.
constexpr llvm::StringLiteral kMagic = "kiln-compile-cache 1\n";

void anchor() {}

/// The compiler and the machine code it targets: kiln's and LLVM's
/// versions, the kiln executable's size and modification time, and the
/// host's triple, CPU and features (kiln compile targets the host).
std::string identity() {
  std::string id;
  llvm::raw_string_ostream os(id);
  os << kMagic << "kiln " << KILN_VERSION_STRING << "\nllvm "
     << LLVM_VERSION_STRING << "\n";
  std::string exe = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&anchor));
  llvm::sys::fs::file_status st;
  if (!exe.empty() && !llvm::sys::fs::status(exe, st))
    os << "exe " << exe << " " << st.getSize() << " "
       << st.getLastModificationTime().time_since_epoch().count() << "\n";
  os << "triple " << llvm::sys::getDefaultTargetTriple() << "\ncpu "
     << llvm::sys::getHostCPUName() << "\n";
  std::vector<std::string> features;
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    features.push_back((feature.second ? "+" : "-") + feature.first().str());
  std::sort(features.begin(), features.end());
  os << "features " << llvm::join(features, ",") << "\n";
  return id;
}

void putField(std::string &out, llvm::StringRef field) {
  out += std::to_string(field.size()) + "\n";
  out += field;
}

/// Reads a field written by putField at pos; false past the end.
bool getField(llvm::StringRef data, size_t &pos, std::string &field) {
  size_t eol = data.find('\n', pos);
  if (eol == llvm::StringRef::npos)
    return false;
  unsigned long long size = 0;
  if (data.substr(pos, eol - pos).getAsInteger(10, size) ||
      size > data.size() - eol - 1)
    return false;
  field = data.substr(eol + 1, size).str();
  pos = eol + 1 + size;
  return true;
}

} // namespace

std::optional<CompileCache> CompileCache::open(bool disabled) {
  if (disabled)
    return std::nullopt;
  if (const char *on = std::getenv("KILN_CACHE")) {
    std::string value = llvm::StringRef(on).lower();
    if (value == "0" || value == "off" || value == "false")
      return std::nullopt;
  }
  llvm::SmallString<256> dir;
  if (const char *env = std::getenv("KILN_CACHE_DIR"); env && *env) {
    dir = env;
  } else {
    if (!llvm::sys::path::cache_directory(dir))
      return std::nullopt;
    llvm::sys::path::append(dir, "kiln");
  }
  return CompileCache(std::string(dir), identity());
}

std::string CompileCache::key(llvm::StringRef content) const {
  llvm::BLAKE3 hasher;
  hasher.update(identity_);
  hasher.update(content);
  return llvm::toHex(hasher.final(), /*LowerCase=*/true);
}

std::string CompileCache::path(const std::string &key) const {
  llvm::SmallString<256> p(dir_);
  llvm::sys::path::append(p, key.substr(0, 2), key.substr(2) + ".kobj");
  return std::string(p);
}

std::optional<CompileCache::Entry>
CompileCache::lookup(const std::string &key) const {
  auto buffer = llvm::MemoryBuffer::getFile(path(key), /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return std::nullopt;
  llvm::StringRef data = (*buffer)->getBuffer();
  if (!data.starts_with(kMagic))
    return std::nullopt;
  size_t pos = kMagic.size();
  Entry entry;
  std::string count;
  unsigned images = 0;
  if (!getField(data, pos, count) ||
      llvm::StringRef(count).getAsInteger(10, images))
    return std::nullopt;
  for (unsigned i = 0; i < images; ++i) {
    stitch::EmbeddedImage image;
    if (!getField(data, pos, image.symbol) ||
        !getField(data, pos, image.bytes) ||
        !getField(data, pos, image.description))
      return std::nullopt;
    entry.images.push_back(std::move(image));
  }
  if (!getField(data, pos, entry.object) || pos != data.size())
    return std::nullopt;
  return entry;
}

std::string CompileCache::store(const std::string &key,
                                const Entry &entry) const {
  std::string p = path(key);
  if (std::error_code ec =
          llvm::sys::fs::create_directories(llvm::sys::path::parent_path(p)))
    return "cannot create " + llvm::sys::path::parent_path(p).str() + ": " +
           ec.message();
  std::string data(kMagic);
  putField(data, std::to_string(entry.images.size()));
  for (const stitch::EmbeddedImage &image : entry.images) {
    putField(data, image.symbol);
    putField(data, image.bytes);
    putField(data, image.description);
  }
  putField(data, entry.object);
  if (llvm::Error error = llvm::writeToOutput(p, [&](llvm::raw_ostream &os) {
        os << data;
        return llvm::Error::success();
      }))
    return "cannot write " + p + ": " + llvm::toString(std::move(error));
  return "";
}

} // namespace kiln::driver
