#version 450
layout(push_constant) uniform Push { vec4 colour; vec2 offset; float scale; } pc;
layout(location = 0) out vec4 out_color;

void main()
{
    out_color = pc.colour;
}
