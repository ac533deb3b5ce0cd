#version 460
#extension GL_EXT_ray_tracing : require
layout(location = 0) rayPayloadInEXT vec3 payload;
hitAttributeEXT vec2 bary;
vec3 shade(vec2 b) { return vec3(1.0 - b.x - b.y, b.x, b.y); }
void main() { payload = shade(bary); }
