#version 450
// threads: a regular polygon per draw, built from gl_VertexIndex (a fan as a
// triangle list), placed, sized and turned by push constants.
layout(push_constant) uniform Push {
    vec2 center;
    float radius;
    float angle;
    float aspect;
    uint sides;
    uint color;
} pc;
layout(location = 0) flat out uint out_color;

void main()
{
    uint tri = uint(gl_VertexIndex) / 3u, corner = uint(gl_VertexIndex) % 3u;
    vec2 p = vec2(0.0);
    if (corner != 0u) {
        float a = pc.angle + 6.28318530718 * float(tri + corner - 1u) / float(pc.sides);
        p = vec2(cos(a), sin(a)) * pc.radius;
    }
    gl_Position = vec4(pc.center + vec2(p.x / pc.aspect, p.y), 0.0, 1.0);
    out_color = pc.color;
}
