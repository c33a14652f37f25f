#version 450
// passes: one triangle from gl_VertexIndex, placed and coloured by push constants.
layout(push_constant) uniform Push { vec4 colour; vec2 offset; float scale; } pc;

void main()
{
    const vec2 corners[3] = vec2[](vec2(0.0, -1.0), vec2(1.0, 0.8), vec2(-1.0, 0.8));
    gl_Position = vec4(pc.offset + pc.scale * corners[gl_VertexIndex], 0.0, 1.0);
}
