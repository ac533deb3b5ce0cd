#!/usr/bin/env python3
"""Generates a large OpenCL C program for the SPIR-V benchmarks (compiled with clang-14 -g -O0 and
llvm-spirv-14, about half of the module's words are debug instructions).

    python3 bench/gen_cl.py --funcs 3000 --seed 1 > big.cl
"""
import argparse
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--funcs", type=int, default=3000)
    ap.add_argument("--structs", type=int, default=200)
    ap.add_argument("--kernels", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    out = []
    for s in range(a.structs):
        out.append(f"typedef struct S{s} {{ float4 a; int k[{rnd.randint(1, 8)}]; float f; }} S{s}_t;")
    for f in range(a.funcs):
        s = rnd.randrange(a.structs)
        out.append(f"""float f{f}(__global const float *in, int i, float x) {{
    S{s}_t st;
    st.a = (float4)(x, (float)i, {rnd.random():.3f}f, 1.0f);
    st.f = 0.0f;
    float acc = in[i & 63];
    for (int j = 0; j < 4; ++j) {{
        int idx = (i + j) & 63;
        st.k[0] = idx;
        acc += in[idx] * st.a.x + (float)st.k[0];
    }}
    switch (i) {{
    case 0: acc += 1.0f; break;
    case 1: acc -= 2.0f; break;
    default: acc *= {rnd.random():.3f}f;
    }}
    return acc + st.f;
}}""")
    for k in range(a.kernels):
        calls = " + ".join(f"f{rnd.randrange(a.funcs)}(in, i, {rnd.random():.2f}f)" for _ in range(4))
        out.append(f"""__kernel void k{k}(__global const float *in, __global float *out) {{
    int i = get_global_id(0);
    out[i] = {calls};
}}""")
    print("\n".join(out))


if __name__ == "__main__":
    main()
