#version 450
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
layout(location = 0) in vec3 inColor[];
layout(location = 0) out vec3 outColor;
void emit(int i) {
    vec3 c = inColor[i] * 0.5;
    outColor = c;
    gl_Position = gl_in[i].gl_Position;
    EmitVertex();
}
void main() {
    for (int i = 0; i < 3; i++) emit(i);
    EndPrimitive();
}
