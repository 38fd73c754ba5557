"""Checks a zoo program's training losses against torch's.

check_losses.py FIXTURE RUN OUTPUT: each `step N ... loss X` line of OUTPUT
must be torch's loss N of RUN in FIXTURE (train-losses.json, written by
scripts/gen_zoo_train_fixtures.py) within float32 tolerance (2e-5 relative,
plus the 6 printed decimals), and there must be one per loss.
"""
import json
import re
import sys


def main():
    fixture, run, output = sys.argv[1:4]
    want = json.load(open(fixture))["runs"][run]
    got = []
    for line in open(output):
        m = re.match(r"step (\d+)\b.* loss (\S+)$", line.strip())
        if m:
            got.append((int(m.group(1)), float(m.group(2))))
    if [n for n, _ in got] != list(range(len(want))):
        sys.exit(f"{output}: steps {[n for n, _ in got]}, torch's run "
                 f"'{run}' has {len(want)}")
    for (n, loss), ref in zip(got, want):
        if not abs(loss - ref) <= 1e-6 + 2e-5 * abs(ref):  # NaN fails too
            sys.exit(f"{output}: step {n} loss {loss}, torch's {ref:.6f}")
    print(f"{len(got)} losses match torch's ({run})")


if __name__ == "__main__":
    main()
