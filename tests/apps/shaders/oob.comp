#version 450
// oob: copies SRC[i + OFFSET] into DST[i] for every cell. SRC holds half as
// many values as there are cells, so with OFFSET 0 the second half of the
// reads fall past the end of SRC: what
// they return is undefined unless the device bounds-checks buffer access
// (robustBufferAccess: zero or in-bounds data).
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { uint count, offset; } pc;
layout(std430, set = 0, binding = 0) readonly buffer Src { uint v[]; } src;
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uint v[]; } dst;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.count)
        dst.v[i] = src.v[i + pc.offset];
}
