#version 450
// Corpus input for dwarv: a GLSL compute shader that a Vulkan driver runs in the tests
// (tests/vulkan_shaders.rs): functions with parameters and locals, nested structs and arrays,
// a loop, a switch, shared memory with a barrier, push constants. Set 0: binding 0 the input
// words, binding 1 the output words; push constants: the count and a seed.

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer Input {
    uint data[];
} src;

layout(std430, set = 0, binding = 1) buffer Output {
    uint result[];
} dst;

layout(push_constant) uniform Params {
    uint count;
    uint seed;
} pc;

struct Pair {
    uint a;
    uint b;
};

struct Cell {
    Pair pairs[2];
    uint tag;
};

shared uint tile[64];

// A private global only main uses: spirv-opt --private-to-local makes it main's local.
uint scratch;

uint mix3(uint x, uint y, uint z)
{
    uint h = x * 2654435761u;
    h ^= y + 0x9e3779b9u + (h << 6) + (h >> 2);
    return h ^ z;
}

Cell make_cell(uint index, uint value)
{
    Cell c;
    c.pairs[0] = Pair(index, value);
    c.pairs[1] = Pair(value ^ pc.seed, index + 1u);
    c.tag = index % 3u;
    return c;
}

uint classify(Cell c)
{
    uint r = 0u;
    switch (c.tag) {
    case 0u:
        r = c.pairs[0].a + c.pairs[1].b;
        break;
    case 1u:
        r = c.pairs[0].b * 3u;
        break;
    default:
        r = mix3(c.pairs[1].a, c.pairs[0].a, 7u);
        break;
    }
    return r;
}

void main()
{
    uint gid = gl_GlobalInvocationID.x;
    uint lid = gl_LocalInvocationID.x;
    tile[lid] = gid < pc.count ? src.data[gid] : 0u;
    barrier();
    uint acc = 0u;
    for (uint k = 0u; k < 4u; ++k) {
        scratch = tile[(lid + k) % 64u] >> k;
        acc += scratch;
    }
    Cell c = make_cell(gid, acc);
    if (gid < pc.count) {
        dst.result[gid] = classify(c) + mix3(acc, lid, pc.seed);
    }
}
