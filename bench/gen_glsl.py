#!/usr/bin/env python3
"""Generates a large GLSL compute shader for the SPIR-V benchmarks: many functions over structs,
arrays, matrices and loops, so that `glslangValidator -gVS` produces a module whose words are
mostly NonSemantic debug instructions.

    python3 bench/gen_glsl.py --funcs 4000 --seed 1 > big.comp
"""
import argparse
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--funcs", type=int, default=4000)
    ap.add_argument("--structs", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    out = ["#version 450", "layout(local_size_x = 64) in;"]
    for s in range(a.structs):
        out.append(f"struct S{s} {{ vec4 a; mat4 m; float f[4]; ivec2 k; }};")
    out.append("layout(std430, binding = 0) buffer Data { vec4 v[]; } data;")
    for f in range(a.funcs):
        s = rnd.randrange(a.structs)
        # Each function calls the previous one, so that all are reachable from main.
        callee = f"f{f - 1}(x * 0.5, i + 1)" if f else "x"
        out.append(f"""float f{f}(float x, int i) {{
    S{s} st;
    st.a = vec4(x, float(i), {rnd.random():.3f}, 1.0);
    st.m = mat4(x);
    float acc = 0.0;
    for (int j = 0; j < 4; ++j) {{
        st.f[j] = st.a[j] * {rnd.random():.3f};
        acc += st.f[j] + (st.m * st.a)[j];
    }}
    st.k = ivec2(i, j_or(i));
    if (acc > {rnd.random():.3f}) {{
        acc -= {callee};
    }}
    return acc + float(st.k.x);
}}""")
        if f == 0:
            out.insert(len(out) - 1, "int j_or(int i) { return i | 1; }")
    out.append("void main() {")
    out.append("    uint id = gl_GlobalInvocationID.x;")
    out.append("    float r = 0.0;")
    for f in sorted(set([a.funcs - 1] + rnd.sample(range(a.funcs), min(a.funcs, 8)))):
        out.append(f"    r += f{f}(data.v[id].x, int(id));")
    out.append("    data.v[id] = vec4(r);")
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
