#version 450
// particles: a quad per instance; the instance data is the particle buffer the
// compute shader wrote, read as a per-instance vertex buffer.
layout(location = 0) in vec2 in_corner;   // per vertex: -1..1
layout(location = 1) in vec4 in_pos;      // per instance
layout(location = 2) in vec4 in_vel;      // per instance
layout(location = 0) out vec2 out_uv;
layout(location = 1) out vec3 out_color;
layout(push_constant) uniform Push { float aspect; } pc;

vec3 hue(float h)
{
    return clamp(abs(mod(h * 6.0 + vec3(0.0, 4.0, 2.0), 6.0) - 3.0) - 1.0, 0.0, 1.0);
}

void main()
{
    float size = in_pos.w;
    gl_Position = vec4(in_pos.xy + in_corner * size * vec2(1.0 / pc.aspect, 1.0), 0.0, 1.0);
    out_uv = in_corner;
    out_color = mix(hue(in_vel.z), vec3(1.0), 0.25);
}
