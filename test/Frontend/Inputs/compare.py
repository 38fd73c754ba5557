"""Compares two program outputs: equal text, numbers within tolerance.

    compare.py EXPECTED ACTUAL [--rtol R] [--atol A]

Every number in both outputs is compared (rtol 1e-4, atol 1e-5 by default,
docs/abi.md's float32 tolerance); everything else must be identical. Exits 1
naming the first difference.
"""
import math
import re
import sys

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)")


def split(text):
    numbers = [m.group(0) for m in NUMBER.finditer(text)]
    return NUMBER.sub("#", text), numbers


def main():
    args = sys.argv[1:]
    rtol, atol = 1e-4, 1e-5
    if "--rtol" in args:
        rtol = float(args[args.index("--rtol") + 1])
    if "--atol" in args:
        atol = float(args[args.index("--atol") + 1])
    expected, actual = open(args[0]).read(), open(args[1]).read()
    text_e, nums_e = split(expected)
    text_a, nums_a = split(actual)
    if text_e != text_a or len(nums_e) != len(nums_a):
        print("compare.py: outputs differ in text:\n--- expected\n%s\n--- actual\n%s"
              % (expected[:2000], actual[:2000]))
        return 1
    if not nums_e:
        print("compare.py: no numbers to compare")
        return 1
    for i, (e, a) in enumerate(zip(nums_e, nums_a)):
        fe, fa = float(e), float(a)
        if math.isnan(fe) and math.isnan(fa):
            continue
        if fe == fa:
            continue
        # A NaN on one side only is a difference (the distance to it is
        # NaN, which no comparison with the tolerance would catch).
        if math.isnan(fe) or math.isnan(fa) or abs(fe - fa) > atol + rtol * abs(fe):
            print("compare.py: number %d differs: expected %s, got %s" % (i, e, a))
            return 1
    print("compare.py: %d numbers agree" % len(nums_e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
