"""A chain of N elementwise linalg.generics (exp after exp), and a check of
what kiln-fuse-elementwise makes of it:

    elementwise_chain.py N > chain.mlir
    elementwise_chain.py --check N MAX_BODY < fused.mlir

--check reads the fused IR and verifies that every one of the N exps is
still there, that no generic's body holds more than MAX_BODY ops, and that
the chain fused into as few generics as that allows (at most twice the
bound's minimum).
"""
import re
import sys


def write(n):
    print("#id = affine_map<(d0) -> (d0)>")
    print("func.func @chain(%x: tensor<?xf32>) -> tensor<?xf32> {")
    prev = "%x"
    for i in range(n):
        print("  %%v%d = linalg.generic {indexing_maps = [#id, #id], "
              "iterator_types = [\"parallel\"]} ins(%s : tensor<?xf32>) "
              "outs(%%x : tensor<?xf32>) {" % (i, prev))
        print("  ^bb0(%a: f32, %o: f32):")
        print("    %e = math.exp %a : f32")
        print("    linalg.yield %e : f32")
        print("  } -> tensor<?xf32>")
        prev = "%%v%d" % i
    print("  return %s : tensor<?xf32>" % prev)
    print("}")


def check(n, max_body):
    bodies, body = [], None
    for line in sys.stdin:
        if "linalg.generic" in line:
            body = 0
        elif body is not None:
            if re.match(r"\s*\^bb", line):
                continue
            if re.match(r"\s*\} -> ", line):
                bodies.append(body)
                body = None
            else:
                body += 1
    exps = sum(bodies) - len(bodies)  # each body's ops but its yield
    least = -(-n // (max_body - 1))
    if exps != n or max(bodies) > max_body or len(bodies) > 2 * least:
        print("FAIL: %d generics, bodies %s, %d exps" % (len(bodies), bodies, exps))
        return 1
    print("OK: %d exps in %d generics of at most %d ops" % (n, len(bodies), max(bodies)))
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        sys.exit(check(int(sys.argv[2]), int(sys.argv[3])))
    write(int(sys.argv[1]))
