// Corpus input for dwarv's LLVM frontend: at -O2 SROA splits the struct locals into
// scalars, so their debug info becomes llvm.dbg.value with DW_OP_LLVM_fragment pieces,
// and the static helpers are inlined (inlinedAt chains).

typedef struct {
    float x;
    float y;
    int id;
} point;

static point make_point(float a, int i) {
    point p;
    p.x = a;
    p.y = a * 2.0f;
    p.id = i;
    return p;
}

static float advance(point *p, int steps) {
    for (int i = 0; i < steps; i++) {
        p->x += p->y;
        p->id ^= i;
    }
    return p->x;
}

__kernel void frag(__global float *out, int n) {
    point p = make_point(out[0], n);
    float last = advance(&p, n);
    out[1] = last;
    out[2] = (float)p.id;
}
