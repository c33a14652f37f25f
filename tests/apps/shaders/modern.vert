#version 460
// modern: instance data fetched through a buffer device address (no vertex
// buffers, no descriptor for it); the address arrives in a push constant.
#extension GL_EXT_buffer_reference : require

struct Instance {
    vec4 place; // center xy, half-size, angle
    uvec4 info; // x: texture index into the bindless array
};
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Instances {
    Instance items[];
};
layout(push_constant) uniform Push {
    Instances instances;
    float aspect;
} pc;
layout(location = 0) out vec2 out_uv;
layout(location = 1) flat out uint out_texture;

void main()
{
    const vec2 corners[6] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(1, 1),
                                   vec2(-1, -1), vec2(1, 1), vec2(-1, 1));
    Instance it = pc.instances.items[gl_InstanceIndex];
    vec2 q = corners[gl_VertexIndex];
    float c = cos(it.place.w), s = sin(it.place.w);
    vec2 p = mat2(c, s, -s, c) * q * it.place.z;
    gl_Position = vec4(it.place.xy + vec2(p.x / pc.aspect, p.y), 0.0, 1.0);
    out_uv = q * 0.5 + 0.5;
    out_texture = it.info.x;
}
