// Corpus input for dwarv: an OpenCL C 2.0 program whose debug info exercises
// nested structs, a union, an enum, typedefs, fixed arrays, every address
// space, vector types, an (at -O2 inlined) helper, loops, a switch, a
// program-scope __global variable and a __constant table.

typedef unsigned int uint32;
typedef float4 color_t;

enum blend_mode { BLEND_NONE = 0, BLEND_ADD = 1, BLEND_MUL = 2, BLEND_MAX = 7 };

typedef struct {
    float2 origin;
    float scale[2];
} transform_t;

union bits {
    float f;
    uint32 u;
    uchar bytes[4];
};

struct layer {
    transform_t xform;          /* nested struct */
    enum blend_mode mode;
    int2 tile;
    color_t tint;
    union bits mask;
    short weights[3];
};

/* program-scope variable in the global address space */
__global uint32 g_pixels_done = 0;

__constant float gamma_lut[4] = { 1.0f, 1.8f, 2.2f, 2.4f };

static float4 blend(float4 dst, float4 src, enum blend_mode mode)
{
    switch (mode) {
    case BLEND_ADD: return dst + src;
    case BLEND_MUL: return dst * src;
    case BLEND_MAX: return fmax(dst, src);
    default:        return src;
    }
}

__kernel void composite(__global float4 *image,
                        __global const struct layer *layers,
                        int nlayers,
                        __local float4 *scratch)
{
    size_t gid = get_global_id(0);
    size_t lid = get_local_id(0);
    float4 acc = (float4)(0.0f);
    int2 pos = (int2)((int)gid, (int)(gid >> 8));

    for (int i = 0; i < nlayers; ++i) {
        __global const struct layer *l = &layers[i];
        float w = l->xform.scale[0] * (float)(l->weights[i % 3]);
        if (l->mask.u & 1u)
            w *= gamma_lut[l->mode & 3];
        float4 src = l->tint * w + (float4)(l->xform.origin, (float)pos.x, 1.0f);
        acc = blend(acc, src, l->mode);
    }

    scratch[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    image[gid] = scratch[lid];
    atomic_inc((volatile __global uint *)&g_pixels_done);
}

__kernel void histogram(__global const uchar *src, uint n,
                        __global uint *bins, __constant float *scale)
{
    uint counts[8];             /* private fixed array */
    private uint *p = counts;
    for (int b = 0; b < 8; ++b)
        p[b] = 0;
    for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
        union bits v;
        v.f = (float)src[i] * scale[0];
        counts[v.bytes[3] & 7]++;
    }
    for (int b = 0; b < 8; ++b)
        atomic_add(&bins[b], counts[b]);
}
