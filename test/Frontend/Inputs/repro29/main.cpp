#include "model.h"
#include <cstdio>
#include <vector>
int main() {
  Layer layer{kiln::ones({8}), kiln::zeros({8}), kiln::randn({8, 8}, 1), kiln::zeros({8})};
  Tensor x = kiln::randn({2, 5, 8}, 2);
  std::vector<bool> pad(10, false);
  pad[4] = pad[9] = true;
  Tensor y = layer.forward(x, kiln::from_vector(pad, {2, 5}));
  std::printf("%.5f\n", kiln::sum(y).item<float>());
  // Other sizes than the first call's.
  Tensor x3 = kiln::randn({3, 4, 8}, 3);
  std::vector<bool> pad3(12, false);
  pad3[0] = pad3[7] = true;
  y = layer.forward(x3, kiln::from_vector(pad3, {3, 4}));
  std::printf("%.5f\n", kiln::sum(y * y).item<float>());
}
