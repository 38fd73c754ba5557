//===- CudaRuntimeTest.cpp - The runtime's GPU side, on a stand-in driver -===//
//
// Runs with KILN_LIBCUDA naming FakeDriver.cpp's library (CMake sets it):
// device memory is host memory there, so what the runtime does around the
// kernels -- loading the driver, allocating and caching, transfers of
// contiguous and strided tensors, staging graph inputs, adopting results,
// reporting errors -- is checked without a GPU. Kernels themselves run in
// the GPU end-to-end tests (test/e2e/cuda), where a GPU is.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include <kiln/kiln.h>

#include <catch2/catch.hpp>
#include <dlfcn.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

using namespace kiln;
using namespace kiln::test;

extern "C" {
void *mgpuMemAlloc(uint64_t size, void *stream, bool hostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t size, void *stream);
void *mgpuModuleLoad(void *data, size_t size);
void *mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *fn, int64_t gx, int64_t gy, int64_t gz, int64_t bx,
                      int64_t by, int64_t bz, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramCount);
}

namespace {

/// The stand-in cuBLAS, named before the runtime first looks for cuBLAS.
const bool kFakeBlas = setenv("KILN_LIBCUBLAS", KILN_FAKE_CUBLAS, 1) == 0;

/// got (on the CPU) equals want in shape, dtype and values.
void checkClose(const Tensor &got, const Tensor &want) {
  REQUIRE(got.device() == Device::cpu());
  checkTensor(got, want.shape(), want.dtype(), values(want));
}

/// A function of the stand-in driver (loaded by the runtime on first use).
template <typename T> T fakeDriver(const char *name) {
  REQUIRE(cuda::is_available());
  void *lib = dlopen(std::getenv("KILN_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(lib);
  return reinterpret_cast<T>(dlsym(lib, name));
}

/// What a compiled graph y = 2 * x + 1 (rank 2, f32) does on this "GPU":
/// reads its input descriptor, allocates its result through mgpuMemAlloc
/// and writes the result descriptor and status 0.
extern "C" void twiceXPlusOne(void **args) {
  auto *in = static_cast<int64_t *>(args[1]);
  float *x;
  std::memcpy(&x, &in[1], sizeof(x));
  x += in[2];
  int64_t rows = in[3], cols = in[4], rs = in[5], cs = in[6];
  auto *y = static_cast<float *>(
      mgpuMemAlloc(rows * cols * sizeof(float), nullptr, false));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      y[i * cols + j] = 2 * x[i * rs + j * cs] + 1;
  auto *out = static_cast<int64_t *>(args[0]);
  std::memcpy(&out[0], &y, sizeof(y));
  std::memcpy(&out[1], &y, sizeof(y));
  int64_t desc[] = {0, rows, cols, cols, 1};
  std::memcpy(&out[2], desc, sizeof(desc));
  int32_t status = 0;
  std::memcpy(&out[7], &status, sizeof(status));
}

/// What a compiled graph of factories alone does, arange(n) (f32): a
/// scalar input, its result allocated on the device.
extern "C" void arangeOfN(void **args) {
  int64_t n;
  std::memcpy(&n, args[1], sizeof(n));
  auto *y =
      static_cast<float *>(mgpuMemAlloc(n * sizeof(float), nullptr, false));
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<float>(i);
  auto *out = static_cast<int64_t *>(args[0]);
  std::memcpy(&out[0], &y, sizeof(y));
  std::memcpy(&out[1], &y, sizeof(y));
  int64_t desc[] = {0, n, 1};
  std::memcpy(&out[2], desc, sizeof(desc));
  int32_t status = 0;
  std::memcpy(&out[5], &status, sizeof(status));
}

const char kPtx[] = "//\n.version 8.0\n.target sm_90\n";

/// A graph whose kernel launch fails: the driver runs none.
extern "C" void launchesAKernel(void **args) {
  static void *module = mgpuModuleLoadJIT(const_cast<char *>(kPtx), 3);
  void *fn = mgpuModuleGetFunction(module, "kernel");
  mgpuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  // Writes a result as the real code would, so the error path frees it.
  twiceXPlusOne(args);
}

/// A graph whose kernel is not in its module.
extern "C" void missingKernel(void **args) {
  static void *module = mgpuModuleLoad(const_cast<char *>(kPtx), sizeof(kPtx));
  void *fn = mgpuModuleGetFunction(module, "missing");
  mgpuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  twiceXPlusOne(args);
}

} // namespace

TEST_CASE("the stand-in driver is a GPU", "[cuda]") {
  REQUIRE(std::getenv("KILN_LIBCUDA"));
  CHECK(cuda::is_available());
  cuda::synchronize();
}

TEST_CASE("to(cuda) and back, contiguous and strided", "[cuda]") {
  Tensor x = randn({3, 5}, 1);
  Tensor d = x.to(Device::cuda());
  CHECK(d.device() == Device::cuda());
  CHECK(d.to(Device::cuda()).shares_storage(d));
  checkClose(d.to(Device::cpu()), x);
  // Views of device memory come back in their own shape.
  checkClose(d.transpose(0, 1).to(Device::cpu()),
             x.transpose(0, 1).contiguous());
  checkClose(d.slice(1, 1, 5, 2).to(Device::cpu()),
             x.slice(1, 1, 5, 2).contiguous());
  checkClose(d.slice(0, 2, 3).to(Device::cpu()), x.slice(0, 2, 3).contiguous());
  // A strided CPU tensor goes over contiguous.
  Tensor t = x.transpose(0, 1).to(Device::cuda());
  CHECK(t.is_contiguous());
  checkClose(t.to(Device::cpu()), x.transpose(0, 1).contiguous());
  CHECK(d.clone().device() == Device::cuda());
  checkClose(d.clone().to(Device::cpu()), x);
  checkClose(d.transpose(0, 1).clone().to(Device::cpu()),
             x.transpose(0, 1).contiguous());
  checkClose(d.to(kFloat64).to(Device::cpu()), x.to(kFloat64));
  CHECK(d.to(kFloat64).device() == Device::cuda());
  CHECK(full({}, 2.5).to(Device::cuda()).item<float>() == 2.5f);
  CHECK(toString(ones({2}).to(Device::cuda())) ==
        "tensor([1., 1.], device='cuda:0')");
  CHECK(zeros({0, 4}).to(Device::cuda()).to(Device::cpu()).shape() ==
        Shape{0, 4});
}

TEST_CASE("eager ops refuse GPU tensors; one GPU", "[cuda]") {
  Tensor d = ones({2}).to(Device::cuda());
  CHECK_KILN_ERROR(d + d, "add", "the eager runtime computes on the cpu",
                   "cuda:0");
  CHECK_KILN_ERROR(exp(d), "exp", "cuda:0");
  CHECK_KILN_ERROR(ones({2}).to(Device::cuda(1)), "cuda:1", "one GPU");
}

TEST_CASE("the caching allocator reuses freed blocks by size", "[cuda]") {
  auto liveBlocks = fakeDriver<size_t (*)()>("kiln_fake_cuda_live_blocks");
  void *first;
  {
    Tensor a({1000}, kFloat32, Device::cuda());
    first = a.raw_data();
  }
  size_t before = liveBlocks();
  Tensor b({900}, kFloat32, Device::cuda()); // same power-of-two bucket
  CHECK(b.raw_data() == first);
  CHECK(liveBlocks() == before);
}

TEST_CASE("GraphCall on cuda: CPU inputs staged, results back", "[cuda]") {
  Tensor x = randn({4, 6}, 2);
  Tensor want = x * 2 + 1;
  CHECK(abi::guard("g", {{x, 2, kFloat32}}, Device::cuda()));
  Tensor y;
  REQUIRE(abi::GraphCall("g", twiceXPlusOne, Device::cuda())
              .input(x)
              .output(y, 2, kFloat32)
              .run());
  CHECK(y.device() == Device::cpu());
  checkClose(y, want);

  // A strided CPU input is staged contiguous.
  Tensor xt = x.transpose(0, 1);
  REQUIRE(abi::GraphCall("g", twiceXPlusOne, Device::cuda())
              .input(xt)
              .output(y, 2, kFloat32)
              .run());
  checkClose(y, xt * 2 + 1);

  // Device inputs pass straight through (a strided view included), and
  // the results stay on the device.
  Tensor dx = x.to(Device::cuda());
  CHECK(abi::guard("g", {{dx, 2, kFloat32}}, Device::cuda()));
  REQUIRE(abi::GraphCall("g", twiceXPlusOne, Device::cuda())
              .input(dx.transpose(0, 1))
              .output(y, 2, kFloat32)
              .run());
  CHECK(y.device() == Device::cuda());
  checkClose(y.to(Device::cpu()), xt * 2 + 1);

  // A CPU graph's guard rejects device tensors.
  CHECK_FALSE(abi::guard("g", {{dx, 2, kFloat32}}));
  // Rank and dtype guards hold on cuda too.
  CHECK_FALSE(abi::guard("g", {{x, 3, kFloat32}}, Device::cuda()));
}

TEST_CASE("GraphCall on cuda: a graph without tensor inputs returns CPU "
          "tensors",
          "[cuda]") {
  // Eager's factories make CPU tensors, so the compiled graph's results
  // come back to the CPU too: only device inputs keep results there.
  Tensor y;
  REQUIRE(abi::GraphCall("factory", arangeOfN, Device::cuda())
              .input(int64_t(5))
              .output(y, 1, kFloat32)
              .run());
  checkClose(y, arange(5).to(kFloat32));
}

TEST_CASE("a failed kernel raises kiln::Error from the graph call", "[cuda]") {
  Tensor x = randn({2, 3}, 3);
  Tensor y;
  CHECK_KILN_ERROR(abi::GraphCall("bad", launchesAKernel, Device::cuda())
                       .input(x)
                       .output(y, 2, kFloat32)
                       .run(),
                   "graph bad", "kernel launch",
                   "the fake driver runs no kernels");
  CHECK_FALSE(y.defined());
  CHECK_KILN_ERROR(abi::GraphCall("missing", missingKernel, Device::cuda())
                       .input(x)
                       .output(y, 2, kFloat32)
                       .run(),
                   "graph missing", "kernel missing", "named symbol not found");
  // The error does not stick: the next graph runs.
  REQUIRE(abi::GraphCall("g", twiceXPlusOne, Device::cuda())
              .input(x)
              .output(y, 2, kFloat32)
              .run());
  checkClose(y, x * 2 + 1);
  auto modules = fakeDriver<int (*)()>("kiln_fake_cuda_modules_loaded");
  CHECK(modules() == 2); // each module loaded once, on its first launch
}

TEST_CASE("compiled code copies single values between host and GPU", "[cuda]") {
  // What a graph does to read a flag its kernels computed (the check of
  // embedding ids), and to write a value for them.
  Tensor d = full({}, 7.0).to(Device::cuda());
  float host = 0;
  mgpuMemcpy(&host, d.raw_data(), sizeof(float), nullptr);
  CHECK(host == 7.0f);
  host = -2.5f;
  mgpuMemcpy(d.raw_data(), &host, sizeof(float), nullptr);
  CHECK(d.item<float>() == -2.5f);
}

//===----------------------------------------------------------------------===//
// Products through cuBLAS (the stand-in FakeBlas.cpp)
//===----------------------------------------------------------------------===//

extern "C" {
bool _mlir_ciface_kiln_cuda_gemm_f32(void *a, void *b, void *c);
bool _mlir_ciface_kiln_cuda_linear_f32(void *x, void *w, void *y);
bool _mlir_ciface_kiln_cuda_bmm_f32(void *a, void *b, void *c);
}

namespace {

/// A tensor's descriptor, as compiled code passes it.
struct Descriptor {
  std::vector<int64_t> words;
  explicit Descriptor(const Tensor &t)
      : words(abi::descriptorSize(t.dim()) / sizeof(int64_t)) {
    abi::describe(t, words.data());
  }
  void *ranked() { return words.data(); }
};

/// An unranked memref: rank and descriptor address.
struct Unranked {
  int64_t rank;
  void *descriptor;
};

/// How many gemms the stand-in cuBLAS ran (the library the runtime opens:
/// dlopen returns the same one).
int cublasCalls() {
  void *lib = dlopen(std::getenv("KILN_LIBCUBLAS"), RTLD_NOW | RTLD_LOCAL);
  REQUIRE(lib);
  auto calls =
      reinterpret_cast<int (*)()>(dlsym(lib, "kiln_fake_cublas_calls"));
  REQUIRE(calls);
  return calls();
}

/// c += a @ b through kiln_cuda_gemm_f32, on GPU copies; the result on the CPU.
Tensor gemmOnGpu(const Tensor &a, const Tensor &b, Tensor c, bool &done) {
  Descriptor da(a), db(b), dc(c);
  done = _mlir_ciface_kiln_cuda_gemm_f32(da.ranked(), db.ranked(), dc.ranked());
  return c.to(Device::cpu());
}

} // namespace

TEST_CASE(
    "gemm through cuBLAS: operands as stored, transposed, or with a row pitch",
    "[cuda]") {
  REQUIRE(kFakeBlas);
  Tensor a = randn({5, 7}, 11), b = randn({7, 3}, 12), c0 = randn({5, 3}, 13);
  Tensor want = c0 + matmul(a, b);
  Device gpu = Device::cuda();
  bool done = false;
  int before = cublasCalls();
  checkClose(gemmOnGpu(a.to(gpu), b.to(gpu), c0.to(gpu), done), want);
  CHECK(done);
  CHECK(cublasCalls() == before + 1);
  // A and B stored transposed (unit row strides): cuBLAS reads them with op T.
  Tensor at = a.transpose(0, 1).contiguous().to(gpu).transpose(0, 1);
  Tensor bt = b.transpose(0, 1).contiguous().to(gpu).transpose(0, 1);
  checkClose(gemmOnGpu(at, bt, c0.to(gpu), done), want);
  CHECK(done);
  // Views with a row pitch larger than their width.
  Tensor aPitched =
      cat({zeros({5, 2}), a, zeros({5, 2})}, 1).to(gpu).slice(1, 2, 9);
  Tensor cPitched =
      cat({zeros({5, 1}), c0, zeros({5, 5})}, 1).to(gpu).slice(1, 1, 4);
  Tensor bg = b.to(gpu);
  Descriptor dA(aPitched), dB(bg), dC(cPitched);
  CHECK(_mlir_ciface_kiln_cuda_gemm_f32(dA.ranked(), dB.ranked(), dC.ranked()));
  checkClose(cPitched.to(Device::cpu()), want);
  // Size-0 products add nothing and succeed.
  Tensor empty = zeros({5, 0}).to(gpu);
  checkClose(gemmOnGpu(empty, zeros({0, 3}).to(gpu), c0.to(gpu), done), c0);
  CHECK(done);
}

TEST_CASE("gemm through cuBLAS declines operands without a unit stride",
          "[cuda]") {
  Device gpu = Device::cuda();
  Tensor big = randn({10, 14}, 14).to(gpu);
  Tensor a = big.slice(0, 0, 10, 2).slice(1, 0, 14, 2); // strides (28, 2)
  Tensor c0 = randn({5, 3}, 15);
  bool done = true;
  int before = cublasCalls();
  Tensor bg = randn({7, 3}, 16).to(gpu);
  Tensor c = gemmOnGpu(a, bg, c0.to(gpu), done);
  CHECK_FALSE(done); // the generated kernel runs instead
  checkClose(c, c0); // untouched
  CHECK(cublasCalls() == before);
}

TEST_CASE("linear through cuBLAS: leading dims as rows of one gemm, or "
          "one strided batch",
          "[cuda]") {
  Device gpu = Device::cuda();
  // y[..., o] += x[..., k] * w[o, k], x of rank 3: contiguous, its leading
  // dims continue its rows (one gemm of 6 rows); transposed, they do not
  // (one strided batch of 2 products, w shared).
  Tensor x = randn({2, 3, 7}, 21), w = randn({4, 7}, 22),
         y0 = randn({2, 3, 4}, 23);
  Tensor want = y0 + matmul(x, w.transpose(0, 1));
  for (Tensor xg :
       {x.to(gpu), x.transpose(0, 1).contiguous().to(gpu).transpose(0, 1)}) {
    Tensor y = y0.to(gpu), wg = w.to(gpu);
    Descriptor dx(xg), dw(wg), dy(y);
    Unranked ux{3, dx.ranked()}, uy{3, dy.ranked()};
    int before = cublasCalls();
    CHECK(_mlir_ciface_kiln_cuda_linear_f32(&ux, dw.ranked(), &uy));
    CHECK(cublasCalls() == before + 1);
    checkClose(y.to(Device::cpu()), want);
  }
  // Rank 4 with a row pitch: [2, 2, 3, 7] sliced from [2, 2, 5, 7] rows.
  Tensor big = randn({2, 2, 5, 7}, 27);
  Tensor x4 = big.slice(2, 1, 4), y4 = randn({2, 2, 3, 4}, 28);
  Tensor want4 = y4 + matmul(x4, w.transpose(0, 1));
  Tensor bigg = big.to(gpu), y4g = y4.to(gpu), wg = w.to(gpu);
  Tensor x4g = bigg.slice(2, 1, 4);
  Descriptor dx(x4g), dw(wg), dy(y4g);
  Unranked ux{4, dx.ranked()}, uy{4, dy.ranked()};
  int before = cublasCalls();
  CHECK(_mlir_ciface_kiln_cuda_linear_f32(&ux, dw.ranked(), &uy));
  CHECK(cublasCalls() == before + 1); // the 4 matrices 35 elements apart
  checkClose(y4g.to(Device::cpu()), want4);
}

TEST_CASE("batched matmul through cuBLAS: one strided batch", "[cuda]") {
  Device gpu = Device::cuda();
  // C[2, 3, 5, 4] += A[2, 3, 5, 7] @ B[2, 3, 7, 4]: 6 products, one launch.
  Tensor a = randn({2, 3, 5, 7}, 29), b = randn({2, 3, 7, 4}, 30),
         c0 = randn({2, 3, 5, 4}, 31);
  Tensor ag = a.to(gpu), bg = b.to(gpu), c = c0.to(gpu);
  Descriptor da(ag), db(bg), dc(c);
  Unranked ua{4, da.ranked()}, ub{4, db.ranked()}, uc{4, dc.ranked()};
  int before = cublasCalls();
  CHECK(_mlir_ciface_kiln_cuda_bmm_f32(&ua, &ub, &uc));
  CHECK(cublasCalls() == before + 1);
  checkClose(c.to(Device::cpu()), c0 + matmul(a, b));
}

TEST_CASE("batched matmul through cuBLAS, batch dims broadcast", "[cuda]") {
  Device gpu = Device::cuda();
  // C[2, 3, 5, 4] += A[2, 1, 5, 7] @ B[3, 7, 4]: size-1 and missing batch
  // dims broadcast.
  Tensor a = randn({2, 1, 5, 7}, 24), b = randn({3, 7, 4}, 25),
         c0 = randn({2, 3, 5, 4}, 26);
  // (The GPU tensors stay alive while their descriptors are used.)
  Tensor ag = a.to(gpu), bg = b.to(gpu), c = c0.to(gpu);
  Descriptor da(ag), db(bg), dc(c);
  Unranked ua{4, da.ranked()}, ub{3, db.ranked()}, uc{4, dc.ranked()};
  // The inner batch dim (3: A broadcast, stride 0) is one strided launch,
  // the outer one (2: B broadcast) repeats it.
  int before = cublasCalls();
  CHECK(_mlir_ciface_kiln_cuda_bmm_f32(&ua, &ub, &uc));
  CHECK(cublasCalls() == before + 2);
  checkClose(c.to(Device::cpu()), c0 + matmul(a, b));
}

namespace {

/// What `run` prints on stderr.
std::string stderrOf(const std::function<void()> &run) {
  std::fflush(stderr);
  std::FILE *file = std::tmpfile();
  REQUIRE(file);
  int saved = dup(2);
  dup2(fileno(file), 2);
  run();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::rewind(file);
  std::string text;
  for (int c; (c = std::fgetc(file)) != EOF;)
    text += static_cast<char>(c);
  std::fclose(file);
  return text;
}

/// The operands of the product profiledGraph runs through cuBLAS.
Tensor *productOperands;

/// A graph that launches a kernel the stand-in driver runs, computes a
/// product through the stand-in cuBLAS, and writes y = 2 * x + 1.
extern "C" void profiledGraph(void **args) {
  static void *module = mgpuModuleLoadJIT(const_cast<char *>(kPtx), 3);
  mgpuLaunchKernel(mgpuModuleGetFunction(module, "noop"), 2, 1, 1, 128, 1, 1, 0,
                   nullptr, nullptr, nullptr, 0);
  Descriptor a(productOperands[0]), b(productOperands[1]),
      c(productOperands[2]);
  _mlir_ciface_kiln_cuda_gemm_f32(a.ranked(), b.ranked(), c.ranked());
  twiceXPlusOne(args);
}

} // namespace

TEST_CASE("KILN_PROFILE reports each kernel and cuBLAS call of a graph call",
          "[cuda]") {
  Device gpu = Device::cuda();
  Tensor operands[] = {randn({4, 5}, 41).to(gpu), randn({5, 3}, 42).to(gpu),
                       zeros({4, 3}).to(gpu)};
  productOperands = operands;
  Tensor x = randn({2, 3}, 43), y;
  auto call = [&] {
    REQUIRE(abi::GraphCall("timed", profiledGraph, gpu)
                .input(x)
                .output(y, 2, kFloat32)
                .run());
  };
  setenv("KILN_PROFILE", "1", 1);
  std::string text = stderrOf(call);
  unsetenv("KILN_PROFILE");
  INFO(text);
  checkClose(y, x * 2 + 1);
  // The stand-in's events tick a quarter of a millisecond per record.
  for (const char *line :
       {"kiln profile: graph timed: noop grid(2, 1, 1) block(128, 1, 1): "
        "0.2500 ms\n",
        "kiln profile: graph timed: cublas sgemm 4x3x5: 0.2500 ms, ",
        "kiln profile: graph timed: 2 launches, 0.5000 ms on the GPU, "})
    CHECK(text.find(line) != std::string::npos);
  // Unset, nothing is timed or printed.
  CHECK(stderrOf(call).find("kiln profile") == std::string::npos);
}
