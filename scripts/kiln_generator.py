"""kiln's random generator written out from its definition
(lib/Runtime/Ops/Factories.cpp), for the fixture scripts: element i of a
draw is SplitMix64 of (seed, i); rand takes its top 53 bits as a double in
[0, 1); randn makes Box-Muller pairs of draws 2k and 2k + 1."""
import math

import numpy as np

M64 = (1 << 64) - 1


def splitmix(seed, i):
    z = (seed + (i + 1) * 0x9e3779b97f4a7c15) & M64
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
    return z ^ (z >> 31)


def unit_draws(shape, seed):
    """kiln::rand(shape, seed) in float64."""
    n = int(np.prod(shape))
    return np.array([(splitmix(seed, i) >> 11) * 2.0 ** -53 for i in range(n)]).reshape(shape)


def normal_draws(shape, seed):
    """kiln::randn(shape, seed) in float64."""
    n = int(np.prod(shape))
    out = np.empty(n, dtype=np.float64)
    for i in range(0, n, 2):
        u1 = (splitmix(seed, i) >> 11) * 2.0 ** -53
        u2 = (splitmix(seed, i + 1) >> 11) * 2.0 ** -53
        r = math.sqrt(-2.0 * math.log(1.0 - u1))
        theta = 6.283185307179586 * u2
        out[i] = r * math.cos(theta)
        if i + 1 < n:
            out[i + 1] = r * math.sin(theta)
    return out.reshape(shape)
