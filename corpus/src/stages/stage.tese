#version 450
layout(triangles, equal_spacing, cw) in;
layout(location = 0) in vec3 inNormal[];
layout(location = 0) out vec3 outNormal;
vec4 interpolate(vec4 a, vec4 b, vec4 c) {
    return gl_TessCoord.x * a + gl_TessCoord.y * b + gl_TessCoord.z * c;
}
void main() {
    vec3 n = gl_TessCoord.x * inNormal[0] + gl_TessCoord.y * inNormal[1] + gl_TessCoord.z * inNormal[2];
    outNormal = normalize(n);
    gl_Position = interpolate(gl_in[0].gl_Position, gl_in[1].gl_Position, gl_in[2].gl_Position);
}
