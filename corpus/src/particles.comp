#version 450
// Corpus input for dwarv: a GLSL compute shader whose NonSemantic debug info
// has structs with array members, an SSBO, a UBO, shared memory, a mat4,
// a function call and loops.

layout(local_size_x = 64) in;

struct Particle {
    vec3 pos;
    float mass;
    vec3 vel;
    float age;
    vec4 trail[4];
};

struct Emitter {
    vec3 origin;
    float rate;
};

layout(std430, binding = 0) buffer Particles {
    Particle items[];
} particles;

layout(std140, binding = 1) uniform Params {
    mat4 world;
    Emitter emitters[2];
    vec3 gravity;
    float dt;
    uint count;
} params;

shared vec3 tile_pos[64];

vec3 integrate(inout Particle p, vec3 accel, float dt)
{
    p.vel += accel * dt;
    p.pos += p.vel * dt;
    p.age += dt;
    return p.pos;
}

void main()
{
    uint id = gl_GlobalInvocationID.x;
    uint lid = gl_LocalInvocationIndex;
    if (id >= params.count)
        return;

    Particle p = particles.items[id];
    vec3 accel = params.gravity / max(p.mass, 0.001);
    vec3 moved = integrate(p, accel, params.dt);

    // shift the trail by one sample
    for (int i = 3; i > 0; --i)
        p.trail[i] = p.trail[i - 1];
    p.trail[0] = params.world * vec4(moved, 1.0);

    tile_pos[lid] = moved;
    barrier();
    vec3 center = vec3(0.0);
    for (uint j = 0u; j < 64u; ++j)
        center += tile_pos[j];
    p.vel += (center / 64.0 - p.pos) * 0.01;

    if (p.age > 10.0)
        p.pos = params.emitters[id & 1u].origin;
    particles.items[id] = p;
}
