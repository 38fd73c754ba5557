"""Writes a compile root of about N traced ops, as one straight-line body:

    large_body.py N [--distinct]

Each statement is two or three ops on a running value; --distinct declares
a new local per statement (`Tensor t12 = ...`) instead of assigning one.
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
    out.append("int main() {")
    out.append("  Tensor a = kiln::randn({4, 8}, 1), b = kiln::randn({8}, 2);")
    out.append("  return big(a, b).numel() == 32 ? 0 : 1;")
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
