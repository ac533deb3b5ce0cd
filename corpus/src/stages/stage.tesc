#version 450
layout(vertices = 3) out;
layout(location = 0) in vec3 inNormal[];
layout(location = 0) out vec3 outNormal[];
layout(push_constant) uniform Push { float level; } pc;
float edge(int i) { return pc.level * (1.0 + float(i)); }
void main() {
    outNormal[gl_InvocationID] = normalize(inNormal[gl_InvocationID]);
    gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;
    if (gl_InvocationID == 0) {
        for (int i = 0; i < 3; i++) gl_TessLevelOuter[i] = edge(i);
        gl_TessLevelInner[0] = edge(3);
    }
}
