#version 450
// triangle: positions and colours from a vertex buffer the app wrote through
// mapped memory; the rotation comes from the frame number (push constant).
layout(location = 0) in vec2 in_pos;
layout(location = 1) in vec3 in_color;
layout(location = 0) out vec3 out_color;
layout(push_constant) uniform Push { float angle; float aspect; } pc;

void main()
{
    float c = cos(pc.angle), s = sin(pc.angle);
    vec2 p = mat2(c, s, -s, c) * in_pos;
    gl_Position = vec4(p.x / pc.aspect, p.y, 0.0, 1.0);
    out_color = in_color;
}
