#version 450
// Corpus input for dwarv: a GLSL fragment shader (struct, mat4, texture
// sampling, push constants, a helper function and a loop).

struct Light {
    vec3 dir;
    float intensity;
    vec3 color;
};

layout(set = 0, binding = 0) uniform sampler2D albedo_tex;

layout(set = 0, binding = 1) uniform Lights {
    mat4 view;
    Light lights[3];
    int nlights;
} ubo;

layout(push_constant) uniform Push {
    vec4 tint;
    float exposure;
} pc;

layout(location = 0) in vec3 v_normal;
layout(location = 1) in vec2 v_uv;
layout(location = 0) out vec4 frag_color;

float lambert(vec3 n, Light l)
{
    vec3 d = normalize((ubo.view * vec4(l.dir, 0.0)).xyz);
    return max(dot(n, -d), 0.0) * l.intensity;
}

void main()
{
    vec3 n = normalize(v_normal);
    vec4 base = texture(albedo_tex, v_uv) * pc.tint;
    vec3 lit = vec3(0.05);
    for (int i = 0; i < ubo.nlights; ++i)
        lit += ubo.lights[i].color * lambert(n, ubo.lights[i]);
    frag_color = vec4(base.rgb * lit * pc.exposure, base.a);
}
