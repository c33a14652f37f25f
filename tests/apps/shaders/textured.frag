#version 450
layout(set = 0, binding = 1) uniform sampler2D tex;
layout(location = 0) in vec2 in_uv;
layout(location = 1) in vec3 in_normal;
layout(location = 0) out vec4 out_color;

void main()
{
    vec3 light = normalize(vec3(0.4, -0.7, -0.6));
    float diffuse = max(dot(normalize(in_normal), -light), 0.0);
    vec3 albedo = texture(tex, in_uv).rgb;
    out_color = vec4(albedo * (0.25 + 0.75 * diffuse), 1.0);
}
