#version 450
// readback: one quad per draw call, its rectangle (NDC) and colour in push
// constants; no vertex buffer at all.
layout(push_constant) uniform Push { vec4 rect; uint color; } pc;
layout(location = 0) flat out uint out_color;

void main()
{
    // Two triangles, counter-clockwise: 0 1 2, 0 2 3 over the rectangle corners.
    const uint corner[6] = uint[](0, 1, 2, 0, 2, 3);
    uint c = corner[gl_VertexIndex];
    float x = (c == 1 || c == 2) ? pc.rect.z : pc.rect.x;
    float y = (c >= 2) ? pc.rect.w : pc.rect.y;
    gl_Position = vec4(x, y, 0.0, 1.0);
    out_color = pc.color;
}
