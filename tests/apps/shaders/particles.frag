#version 450
layout(location = 0) in vec2 in_uv;
layout(location = 1) in vec3 in_color;
layout(location = 0) out vec4 out_color;

void main()
{
    // A soft disc, premultiplied alpha; the pipeline blends "over".
    float a = clamp(1.0 - dot(in_uv, in_uv), 0.0, 1.0) * 0.8;
    out_color = vec4(in_color * a, a);
}
