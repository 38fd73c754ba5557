"""Writes a compile root of about N traced ops, as one straight-line body:

    large_body.py N [--distinct] [--print]

Each statement is two or three ops on a running value; --distinct declares
a new local per statement (`Tensor t12 = ...`) instead of assigning one.
--print makes main print the result, for inputs of the sizes its arguments
give (rows, then columns; 4 and 8 by default).
"""
import sys


def main():
    n = int(sys.argv[1])
    distinct = "--distinct" in sys.argv
    out = ["#include <kiln/kiln.h>", "using kiln::Tensor;",
           "KILN_COMPILE() Tensor big(const Tensor &a, const Tensor &b) {",
           "  Tensor t0 = a;" if distinct else "  Tensor x = a;"]
    for i in range(1, n // 2):
        prev, cur = ("t%d" % (i - 1), "Tensor t%d" % i) if distinct else ("x", "x")
        body = "%s * 0.5f + b" % prev if i % 3 else "(%s - b).tanh()" % prev
        out.append("  %s = %s;" % (cur, body))
    out.append("  return %s;" % ("t%d" % (n // 2 - 1) if distinct else "x"))
    out.append("}")
    if "--print" in sys.argv:
        out[0:1] = ["#include <kiln/kiln.h>", "#include <cstdlib>",
                    "#include <iostream>"]
        out.append("int main(int argc, char **argv) {")
        out.append("  int64_t m = argc > 1 ? std::atoll(argv[1]) : 4;")
        out.append("  int64_t n = argc > 2 ? std::atoll(argv[2]) : 8;")
        out.append("  Tensor a = kiln::randn({m, n}, 1), b = kiln::randn({n}, 2);")
        out.append("  std::cout << big(a, b) << \"\\n\";")
        out.append("  return 0;")
    else:
        out.append("int main() {")
        out.append("  Tensor a = kiln::randn({4, 8}, 1), b = kiln::randn({8}, 2);")
        out.append("  return big(a, b).numel() == 32 ? 0 : 1;")
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
