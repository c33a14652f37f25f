#version 450
// msaa: one thin wedge a frame, turned, placed, coloured and at a depth given
// by the frame number (push constants): its slanted edges cover pixels in
// part, so the samples of one pixel differ.
layout(push_constant) uniform Push { vec4 color; vec2 center; float angle; float depth; } pc;

void main()
{
    const vec2 corners[3] = vec2[](vec2(0.0, -0.55), vec2(0.09, 0.45), vec2(-0.09, 0.45));
    float c = cos(pc.angle), s = sin(pc.angle);
    gl_Position = vec4(pc.center + mat2(c, s, -s, c) * corners[gl_VertexIndex], pc.depth, 1.0);
}
