#version 450
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 64) in;
layout(buffer_reference) buffer Node;
layout(buffer_reference, std430) buffer Node { Node next; float value; };
layout(push_constant) uniform Push { Node head; uint count; } pc;
float sum(Node n, uint count) {
    float s = 0.0;
    for (uint i = 0; i < count; i++) { s += n.value; n = n.next; }
    return s;
}
void main() { if (gl_GlobalInvocationID.x == 0) pc.head.value = sum(pc.head, pc.count); }
